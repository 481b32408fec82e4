// SPDX-License-Identifier: GPL-3.0-or-later
// The floating error line.
#include "ui/panels/error_banner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace attnlab::ui {

ErrorBanner::ErrorBanner(QWidget* host)
    : QFrame(host), label_(new QLabel), close_(new QToolButton) {
    setObjectName("errorBanner");
    setStyleSheet("#errorBanner { background: #fbe3d0; border: 1px solid #cc5500; }"
                  " QLabel { color: #5a2a00; }");
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    close_->setText("✕");
    close_->setAutoRaise(true);
    close_->setToolTip("Dismiss (Esc)");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(label_, 1);
    layout->addWidget(close_, 0, Qt::AlignTop);
    connect(close_, &QToolButton::clicked, this, &QWidget::hide);
    host->installEventFilter(this);
    hide();
}

void ErrorBanner::showMessage(const QString& message) {
    label_->setText(message);
    show();
    place();
    raise();
}

QString ErrorBanner::text() const {
    return isHidden() ? QString() : label_->text();
}

bool ErrorBanner::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parent() && event->type() == QEvent::Resize && isVisible()) place();
    return QFrame::eventFilter(watched, event);
}

void ErrorBanner::place() {
    const QWidget* host = parentWidget();
    const int margin = 6;
    const int width = host->width() - 2 * margin;
    const int height = std::max(sizeHint().height(), heightForWidth(width));
    setGeometry(margin, host->height() - height - margin, width, height);
}

} // namespace attnlab::ui
