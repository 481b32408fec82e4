// SPDX-License-Identifier: GPL-3.0-or-later
// Pooling a view to the plot's pixels with the CPU's max-pool kernel.
#include "core/explore/display_pooling.h"

#include "core/backend/cpu/pooled_map.h"

namespace attnlab {

namespace {

int blockFor(Eigen::Index cells, int limit) {
    return int((cells + limit - 1) / limit);
}

} // namespace

std::pair<int, int> displayBlocks(Eigen::Index rows, Eigen::Index cols, int maxRows, int maxCols) {
    return {blockFor(rows, maxRows), blockFor(cols, maxCols)};
}

Eigen::MatrixXd displayCells(const Eigen::MatrixXd& values, int maxRows, int maxCols) {
    return kernels::maxPool<double>(values, maxRows, maxCols, kernels::PoolBy::Magnitude);
}

Eigen::MatrixXd maskedShade(const BoolMatrix& allowed, int maxRows, int maxCols) {
    const Eigen::MatrixXd allowedOnes = allowed.cast<double>();
    return (1.0 - kernels::maxPool<double>(allowedOnes, maxRows, maxCols).array()).matrix();
}

} // namespace attnlab
