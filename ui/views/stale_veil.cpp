// SPDX-License-Identifier: GPL-3.0-or-later
// Painting the veil over an out-of-date heatmap.
#include "ui/views/stale_veil.h"

#include <QPainter>

#include <algorithm>

namespace attnlab::ui {

StaleVeil::StaleVeil(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    hide();
}

void StaleVeil::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    QColor cover = palette().color(QPalette::Window);
    cover.setAlpha(170);
    painter.fillRect(rect(), cover);
    QFont font = this->font();
    font.setBold(true);
    const double width = QFontMetricsF(font).horizontalAdvance(text()) + 16;
    if (width > this->width())
        font.setPointSizeF(std::max(6.0, font.pointSizeF() * this->width() / width));
    painter.setFont(font);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(rect(), Qt::AlignCenter, text());
}

} // namespace attnlab::ui
