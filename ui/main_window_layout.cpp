// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window's size, place and panel widths: remembered between runs, brought back
// within the screen it opens on.
#include "ui/main_window.h"

#include <QDataStream>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStyle>

#include <algorithm>
#include <numeric>

namespace attnlab::ui {

void MainWindow::restoreLayout() {
    QSettings settings;
    // At most the screen, frame included: a window larger than a small screen hides its own
    // edges. Before it is shown its frame is not known: a title bar of the style's height and
    // borders of 4 px are assumed.
    const QRect room = screen()->availableGeometry();
    constexpr int border = 4;
    const QSize most =
        room.size() - QSize(2 * border, style()->pixelMetric(QStyle::PM_TitleBarHeight) + border);
    resize(QSize(1600, 950).boundedTo(most));
    // A window saved on a larger screen comes back whole on this one.
    if (restoreGeometry(settings.value("window/geometry").toByteArray())) {
        resize(size().boundedTo(most));
        move(std::max(room.left(), std::min(x(), room.left() + most.width() - width())),
             std::max(room.top(), std::min(y(), room.top() + most.height() - height())));
    }
    restoreState(settings.value("window/state").toByteArray());
    // At 1280 px the views need 580: the editors get 300 (their tabs' titles fit), the verdicts
    // 380 (their four columns do). Wider, the editors grow to 430 and the verdicts to 420 at 1600,
    // the views take the rest.
    const int editors = std::clamp(300 + (width() - 1280) * 2 / 5, 300, 430);
    const int verdictsWidth = std::clamp(380 + (width() - 1280) / 8, 380, 420);
    splitter_->setSizes({editors, width() - editors - verdictsWidth - 20, verdictsWidth});
    // Panels saved for a wider window keep these widths: restored, they would shrink in
    // proportion, the verdicts' columns cut. (QSplitter::saveState: a marker, a version, then
    // the panels' widths.)
    const QByteArray panels = settings.value("window/splitter").toByteArray();
    QDataStream stream(panels);
    stream.setVersion(QDataStream::Qt_5_0);
    qint32 marker = 0, version = 0;
    QList<int> saved;
    stream >> marker >> version >> saved;
    if (std::accumulate(saved.begin(), saved.end(), 0) <= width() - 8) // the margins: 2 x 4
        splitter_->restoreState(panels);
}

void MainWindow::saveLayout() {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("window/splitter", splitter_->saveState());
}

} // namespace attnlab::ui
