// SPDX-License-Identifier: GPL-3.0-or-later
// The mask as n x n cells (allowed / blocked), painted by click or drag: a stroke sets every
// cell it touches to the opposite of the first cell's state, and is reported once, on release.
// Rows with no allowed key are hatched and flagged in the margin.
#pragma once

#include "core/base/scalar.h"
#include "ui/mask/cell_grid_view.h"

namespace attnlab::ui {

class MaskPaintView : public CellGridView {
    Q_OBJECT
public:
    explicit MaskPaintView(QWidget* parent = nullptr);
    /// Shows `cells` (square). Does not emit cellsPainted.
    void setMask(const BoolMatrix& cells);
    const BoolMatrix& cells() const { return cells_; }
    /// Rows to flag as having no allowed key.
    void setMarkedRows(std::vector<int> rows);

signals:
    /// A stroke ended and changed at least one cell: the cells after it.
    void cellsPainted(const BoolMatrix& cells);

protected:
    QBrush cellBrush(unsigned char category) const override;
    QString cellText(int s, int t) const override;
    void paintOverlay(QPainter& painter) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void touch(QPoint cell);
    void refreshCells();

    BoolMatrix cells_;
    std::vector<int> markedRows_;
    bool stroking_ = false;
    bool target_ = false;  // the state the current stroke paints
    bool changed_ = false; // the current stroke changed a cell
    QPoint last_{-1, -1};  // the last cell the stroke touched
};

} // namespace attnlab::ui
