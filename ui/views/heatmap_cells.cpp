// SPDX-License-Identifier: GPL-3.0-or-later
// Filling a heatmap's colour maps from a ViewMatrix and its mask, pooled to the plot's pixels.
#include "ui/views/heatmap_cells.h"

#include "core/explore/display_pooling.h"
#include "core/formats/color_maps.h"
#include "ui/views/color_maps.h"

#include <algorithm>

#include <qcustomplot.h>

namespace attnlab::ui {

namespace {

/// Cell centres of a pooled axis: cell j stands for tokens [j·block, (j+1)·block).
QCPRange centres(Eigen::Index cells, int block) {
    const double half = (block - 1) / 2.0;
    return {half, double(cells - 1) * block + half};
}

/// Fills a colour map's cells with `values`, each cell standing for block x block tokens. A
/// single row or column is drawn as two halves: QCustomPlot sizes cells by the distance between
/// their centres, which one cell does not have.
void fill(QCPColorMap* map, const Eigen::MatrixXd& values, int rowBlock, int colBlock) {
    const auto cells = [](Eigen::Index n) { return int(std::max<Eigen::Index>(n, 2)); };
    const auto range = [](Eigen::Index n, int block) {
        return n > 1 ? centres(n, block) : QCPRange(block / 4.0 - 0.5, 3 * block / 4.0 - 0.5);
    };
    auto* data = map->data();
    data->setSize(cells(values.cols()), cells(values.rows()));
    data->setRange(range(values.cols(), colBlock), range(values.rows(), rowBlock));
    for (int i = 0; i < cells(values.rows()); ++i)
        for (int j = 0; j < cells(values.cols()); ++j)
            data->setCell(j, i,
                          values(std::min<Eigen::Index>(i, values.rows() - 1),
                                 std::min<Eigen::Index>(j, values.cols() - 1)));
}

} // namespace

HeatmapCells::HeatmapCells(QCustomPlot* plot)
    : plot_(plot), map_(new QCPColorMap(plot->xAxis, plot->yAxis)),
      overlay_(new QCPColorMap(plot->xAxis, plot->yAxis)) {
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    overlay_->setInterpolate(false);
    overlay_->setGradient(maskOverlayGradient());
    overlay_->setDataRange(QCPRange(0, 1));
    overlay_->setVisible(false);
}

void HeatmapCells::clear() {
    map_->data()->setSize(0, 0);
    map_->setVisible(false);
    overlay_->setVisible(false);
}

void HeatmapCells::setMatrix(const ViewMatrix& matrix) {
    map_->setVisible(true);
    mask_ = {};
    overlay_->setVisible(false);
    fillMap(matrix);
}

bool HeatmapCells::setMask(const ViewMatrix& matrix, const BoolMatrix& mask) {
    const auto& v = matrix.values;
    const bool fits =
        mask.size() > 0 && !matrix.pooled() && mask.rows() == v.rows() && mask.cols() == v.cols();
    if (fits && mask_.rows() == mask.rows() && mask_.cols() == mask.cols() && (mask_ == mask).all())
        return false;
    mask_ = fits ? mask : BoolMatrix();
    overlay_->setVisible(fits);
    fillOverlay();
    return true;
}

void HeatmapCells::refit(const ViewMatrix& matrix) {
    if (matrix.values.size() == 0 || pixelBlocks(matrix) == displayBlock_) return;
    fillMap(matrix);
    fillOverlay();
}

QColor HeatmapCells::colour(const ViewMatrix& matrix, int row, int column) const {
    const auto [bh, bw] = displayBlock_;
    const int i = row / (matrix.rowBlock * bh), j = column / (matrix.colBlock * bw);
    QCPColorMapData* data = map_->data();
    if (row < 0 || column < 0 || i >= data->valueSize() || j >= data->keySize()) return {};
    return QColor(map_->gradient().color(data->cell(j, i), map_->dataRange()));
}

std::pair<int, int> HeatmapCells::pixelCells() const {
    const QRect area = plot_->axisRect()->rect();
    return {std::max(area.height(), 16), std::max(area.width(), 16)};
}

std::pair<int, int> HeatmapCells::pixelBlocks(const ViewMatrix& matrix) const {
    const auto [maxRows, maxCols] = pixelCells();
    return displayBlocks(matrix.values.rows(), matrix.values.cols(), maxRows, maxCols);
}

void HeatmapCells::fillMap(const ViewMatrix& matrix) {
    // At most one cell per pixel of the plot (display_pooling.h).
    const auto [maxRows, maxCols] = pixelCells();
    displayBlock_ = pixelBlocks(matrix);
    const auto [bh, bw] = displayBlock_;
    const Eigen::MatrixXd cells = displayCells(matrix.values, maxRows, maxCols);
    fill(map_, matrix.tolerance > 0 ? neutralWithin(cells, matrix.tolerance) : cells,
         matrix.rowBlock * bh, matrix.colBlock * bw);
}

void HeatmapCells::fillOverlay() {
    if (mask_.size() == 0) return;
    // At the map's cells; grey where every key of a cell is masked.
    const auto [maxRows, maxCols] = pixelCells();
    const auto [bh, bw] = displayBlock_;
    fill(overlay_, maskedShade(mask_, maxRows, maxCols), bh, bw);
}

} // namespace attnlab::ui
