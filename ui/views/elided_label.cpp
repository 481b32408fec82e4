// SPDX-License-Identifier: GPL-3.0-or-later
// Eliding a label's text to its width.
#include "ui/views/elided_label.h"

namespace attnlab::ui {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void ElidedLabel::setFullText(const QString& text) {
    text_ = text;
    setToolTip(text);
    elide();
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide() {
    setText(fontMetrics().elidedText(text_, Qt::ElideRight, contentsRect().width()));
}

} // namespace attnlab::ui
