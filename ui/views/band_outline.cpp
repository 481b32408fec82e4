// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing a band's outline over a heatmap.
#include "ui/views/band_outline.h"

#include <algorithm>

namespace attnlab::ui {

BandOutline::BandOutline(QCPColorMap* map, const QString& layer)
    : QCPLayerable(map->parentPlot(), layer), map_(map) {}

void BandOutline::setBand(std::optional<int> radius, int rows, int columns) {
    radius_ = radius;
    rows_ = rows;
    columns_ = columns;
}

void BandOutline::applyDefaultAntialiasingHint(QCPPainter* painter) const {
    painter->setAntialiasing(false); // axis-aligned steps
}

QRect BandOutline::clipRect() const {
    return map_->keyAxis()->axisRect()->rect();
}

QPolygonF BandOutline::edge(bool right) const {
    const QCPAxis* x = map_->keyAxis();
    const QCPAxis* y = map_->valueAxis();
    const int r = *radius_;
    QPolygonF line;
    for (int i = 0; i < rows_; ++i) {
        // Row i's band is the columns [i − r, i + r] within the map: its left or right side.
        const int first = std::max(i - r, 0), last = std::min(i + r, columns_ - 1);
        if (first > last) continue;
        const double side = x->coordToPixel(right ? last + 0.5 : first - 0.5);
        line << QPointF(side, y->coordToPixel(i - 0.5)) << QPointF(side, y->coordToPixel(i + 0.5));
    }
    return line;
}

void BandOutline::draw(QCPPainter* painter) {
    if (!radius_ || rows_ <= 0 || columns_ <= 0) return;
    const double width = 1.5 * scale_;
    QPen dashed(QColor(255, 255, 255), width, Qt::DashLine);
    for (const bool right : {false, true}) {
        const QPolygonF line = edge(right);
        painter->setPen(QPen(QColor(20, 20, 20), width + 2 * scale_));
        painter->drawPolyline(line);
        painter->setPen(dashed);
        painter->drawPolyline(line);
    }
}

} // namespace attnlab::ui
