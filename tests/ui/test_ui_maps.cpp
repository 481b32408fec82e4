// SPDX-License-Identifier: GPL-3.0-or-later
// Heatmaps that tell the truth and can be read: a stale map is veiled until its caller says it is
// current.
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QAction>
#include <QTabWidget>

#include <QTest>

using attnlab::ViewMatrix;
using namespace attnlab::ui;

namespace {

ViewMatrix ramp(int rows, int columns) {
    ViewMatrix m;
    m.values.resize(rows, columns);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
            m.values(i, j) = i - 0.5 * j;
    return m;
}

/// The view as it is painted now, after the replots it asked for.
QImage painted(HeatmapView& view) {
    QCoreApplication::processEvents();
    return view.grab().toImage();
}

} // namespace

class TestUiMaps : public QObject {
    Q_OBJECT
private slots:
    // setStale veils the map (other pixels, "computing…" across it); a new matrix keeps the veil;
    // setStale(false) gives back the picture as it was.
    void aStaleMapIsVeiledUntilItsCallerLiftsIt() {
        for (const bool presentation : {false, true}) {
            HeatmapView view("weights", HeatmapView::Scale::Sequential);
            view.setPresentation(presentation);
            view.resize(360, 300);
            view.setMatrix(ramp(6, 6));
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            const QImage current = painted(view);
            QVERIFY(!view.isStale());
            view.setStale(true);
            QVERIFY(view.isStale());
            const QImage veiled = painted(view);
            QVERIFY(veiled != current);
            view.setMatrix(ramp(6, 5));
            QVERIFY(view.isStale());
            view.setMatrix(ramp(6, 6));
            view.setStale(false);
            QVERIFY(!view.isStale());
            QCOMPARE(painted(view), current);
        }
    }

    // In presentation mode on a 1280 x 720 projector every title and colour-bar caption of the
    // side-by-side maps shows whole, and numbers in cells are written at 14 px or not at all: the
    // output maps of rope-shift (6 x 4) carry theirs.
    void presentationAt1280ShowsWholeTitlesAndReadableNumbers() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openSource("builtin:rope-shift"));
        QVERIFY(waitForIdle(w));
        w.findChild<QAction*>("presentation")->trigger();
        QTest::qWait(100);
        ViewsPanel* views = w.views();
        for (HeatmapView* v : views->allViews()) {
            if (!v->isVisible()) continue;
            QVERIFY2(!v->titleElided(), qPrintable(v->title()));
            QVERIFY2(!v->colourLabelElided(), qPrintable(v->title()));
            if (!v->cellNumber(0, 0).isEmpty())
                QVERIFY2(QFontInfo(v->cellNumberFont()).pixelSize() >= 14, qPrintable(v->title()));
        }
        for (const auto column : {ViewsPanel::Original, ViewsPanel::Transformed}) {
            HeatmapView* output = views->view(ViewsPanel::Output, column);
            QCOMPARE(output->matrix().values.rows(), 6);
            QVERIFY(!output->cellNumber(0, 0).isEmpty());
        }
    }

    // The Dependencies page of a 12-token window with a stray cell at 1280 x 720: square cells,
    // the claimed radius 2 outlined on every map, whole titles, and the summary says the claimed
    // and the measured radius (so that "exactly 0" beside "fails" is explained).
    void theDependencyPageDrawsSquareCellsAndTheClaimedBand() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openSource("builtin:window-stray-cell"));
        QVERIFY(waitForIdle(w));
        ViewsPanel* views = w.views();
        views->tabs()->setCurrentIndex(1);
        QTest::qWait(100);
        for (HeatmapView* v : {views->dependencyView(), views->boundView(), views->excessView()}) {
            QCOMPARE(v->matrix().values.rows(), 12);
            QCOMPARE(v->matrix().values.cols(), 12);
            const QRect cells = v->plot()->axisRect()->rect();
            QVERIFY2(std::abs(cells.width() - cells.height()) <= 3,
                     qPrintable(QString("%1 x %2").arg(cells.width()).arg(cells.height())));
            QVERIFY(cells.width() >= 12 * 10); // cells of 10 px at least
            QCOMPARE(v->bandRadius(), std::optional<int>(2));
            QVERIFY2(!v->titleElided(), qPrintable(v->title()));
        }
        QVERIFY(views->dependencySummary().contains("Claimed radius 2"));
        QVERIFY(views->dependencySummary().contains("measured radius 7"));
    }
};

QTEST_MAIN(TestUiMaps)
#include "test_ui_maps.moc"
