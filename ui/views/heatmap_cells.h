// SPDX-License-Identifier: GPL-3.0-or-later
// A heatmap's cells: the matrix's values and the grey overlay of its masked cells, as two crisp
// QCustomPlot colour maps on the plot's axes, with at most as many cells as the plot has pixels
// (a larger matrix is max-pooled to them, display_pooling.h) and axes still in token indices.
#pragma once

#include "core/explore/side_by_side.h"

#include <QColor>

#include <utility>

class QCustomPlot;
class QCPColorMap;

namespace attnlab::ui {

class HeatmapCells {
public:
    /// Adds the map and, over it, the (hidden) overlay to `plot`.
    explicit HeatmapCells(QCustomPlot* plot);

    /// The colour map of the values (its data range and colour scale are the view's).
    QCPColorMap* map() const { return map_; }
    /// Shows no cells (the mask, if any, is kept).
    void clear();
    /// Draws `matrix` (not empty) and drops the overlay: setMask gives the new one.
    void setMatrix(const ViewMatrix& matrix);
    /// Greys out the cells of `matrix` where `mask` is false; a mask not of its shape (or of a
    /// pooled matrix) removes the overlay. False when the overlay shown is that already.
    bool setMask(const ViewMatrix& matrix, const BoolMatrix& mask);
    /// Whether masked cells are greyed.
    bool showsMask() const { return mask_.size() > 0; }
    /// Pools `matrix` again where the plot's size changes how many of its cells fit.
    void refit(const ViewMatrix& matrix);
    /// Rows, columns of the matrix that one drawn cell covers (1, 1 when every cell fits).
    std::pair<int, int> displayBlock() const { return displayBlock_; }
    /// The colour token cell (row, column) of `matrix` is drawn in; invalid outside the map.
    QColor colour(const ViewMatrix& matrix, int row, int column) const;

private:
    /// How many cells fit the plot: its pixel rows and columns (at least 16 each).
    std::pair<int, int> pixelCells() const;
    /// How many rows and columns of `matrix` one drawn cell covers at that size.
    std::pair<int, int> pixelBlocks(const ViewMatrix& matrix) const;
    /// The map's cells from `matrix` (not empty) at the plot's size.
    void fillMap(const ViewMatrix& matrix);
    /// The overlay at the map's cells (fillMap first).
    void fillOverlay();

    QCustomPlot* plot_;
    QCPColorMap* map_;
    QCPColorMap* overlay_;
    BoolMatrix mask_;                        // the overlay's source (empty: none)
    std::pair<int, int> displayBlock_{1, 1}; // rows, columns of the matrix per drawn cell
};

} // namespace attnlab::ui
