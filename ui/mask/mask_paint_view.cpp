// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing and painting mask cells.
#include "ui/mask/mask_paint_view.h"

#include "ui/mask/mask_palette.h"

#include <QMouseEvent>
#include <QPainter>

#include <cmath>

namespace attnlab::ui {

MaskPaintView::MaskPaintView(QWidget* parent) : CellGridView(parent) {
    setMouseTracking(false);
    setCursor(Qt::CrossCursor);
    // As tall as the column's width makes the grid (the editor's column scrolls, if need be).
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void MaskPaintView::setMask(const BoolMatrix& cells) {
    Q_ASSERT(cells.rows() == cells.cols());
    cells_ = cells;
    stroking_ = false;
    refreshCells();
}

void MaskPaintView::setMarkedRows(std::vector<int> rows) {
    markedRows_ = std::move(rows);
    update();
}

void MaskPaintView::refreshCells() {
    const int n = static_cast<int>(cells_.rows());
    std::vector<unsigned char> categories(std::size_t(n) * n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t)
            categories[std::size_t(s) * n + t] = cells_(s, t) ? 1 : 0;
    setCells(n, std::move(categories));
}

QBrush MaskPaintView::cellBrush(unsigned char category) const {
    return category ? mask_palette::allowed(palette()) : mask_palette::blocked(palette());
}

QString MaskPaintView::cellText(int s, int t) const {
    return cells_(s, t) ? tr("allowed (click to block)") : tr("blocked (click to allow)");
}

void MaskPaintView::paintOverlay(QPainter& painter) {
    if (markedRows_.empty()) return;
    const QRectF grid = gridRect();
    const QColor warning = mask_palette::warning();
    painter.setPen(QPen(warning, 1.5));
    for (int s : markedRows_) {
        const QRectF row = cellRect(s, 0);
        const QRectF band(grid.left(), row.top(), grid.width(), std::max(row.height(), 1.0));
        painter.fillRect(band, QBrush(warning, Qt::BDiagPattern));
        if (row.height() >= 4) painter.drawRect(band.adjusted(0.5, 0.5, -0.5, -0.5));
        // The row's label turned into a badge: white on vermillion.
        const QFontMetrics fm = fontMetrics();
        const double labelWidth = fm.horizontalAdvance(QString::number(tokenCount() - 1)) + 6;
        const QRectF badge(grid.left() - labelWidth - 1, band.top(), labelWidth, band.height());
        painter.fillRect(badge, warning);
        if (band.height() >= fm.height() * 0.8) {
            painter.setPen(Qt::white);
            painter.drawText(badge.adjusted(0, 0, -3, 0), Qt::AlignRight | Qt::AlignVCenter,
                             QString::number(s));
            painter.setPen(QPen(warning, 1.5));
        }
    }
}

void MaskPaintView::touch(QPoint cell) {
    if (cell.x() < 0) return;
    // Every cell on the straight path from the last one, so fast drags leave no gaps.
    const QPoint from = last_.x() < 0 ? cell : last_;
    const int steps = std::max(std::abs(cell.x() - from.x()), std::abs(cell.y() - from.y()));
    for (int i = 0; i <= steps; ++i) {
        const double f = steps ? double(i) / steps : 0.0;
        const int t = int(std::lround(from.x() + f * (cell.x() - from.x())));
        const int s = int(std::lround(from.y() + f * (cell.y() - from.y())));
        if (cells_(s, t) != target_) {
            cells_(s, t) = target_;
            changed_ = true;
        }
    }
    last_ = cell;
    refreshCells();
}

void MaskPaintView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const QPoint cell = cellAt(event->position());
    if (cell.x() < 0) return;
    stroking_ = true;
    changed_ = false;
    target_ = !cells_(cell.y(), cell.x());
    last_ = {-1, -1};
    touch(cell);
}

void MaskPaintView::mouseMoveEvent(QMouseEvent* event) {
    if (!stroking_) return;
    // Clamp to the grid so a drag that leaves it paints along the edge.
    const QRectF grid = gridRect();
    const QPointF p(std::clamp(event->position().x(), grid.left(), grid.right() - 0.5),
                    std::clamp(event->position().y(), grid.top(), grid.bottom() - 0.5));
    const QPoint cell = cellAt(p);
    if (cell != last_) touch(cell);
}

void MaskPaintView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !stroking_) return;
    stroking_ = false;
    last_ = {-1, -1};
    if (changed_) emit cellsPainted(cells_);
}

} // namespace attnlab::ui
