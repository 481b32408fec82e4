// SPDX-License-Identifier: GPL-3.0-or-later
// A matrix fitted to the cells a plot has pixels for: a view with more rows or columns than
// pixels would drop whole rows when scaled down (a one-token band of a 2048² map vanishes), so
// it is max-pooled to at most one cell per pixel, keeping peaks, as side_by_side.h pools maps
// above its view limit. The mask shading drawn over it is pooled to the same cells.
#pragma once

#include "core/base/scalar.h"

#include <utility>

namespace attnlab {

/// How many rows and columns of a rows x cols matrix one of at most maxRows x maxCols drawn
/// cells covers (1 when it fits).
std::pair<int, int> displayBlocks(Eigen::Index rows, Eigen::Index cols, int maxRows, int maxCols);

/// `values` pooled to at most maxRows x maxCols cells, each the entry of largest |value| (with its
/// sign) of the block displayBlocks gives; as it is when it fits.
Eigen::MatrixXd displayCells(const Eigen::MatrixXd& values, int maxRows, int maxCols);

/// The shade over those cells: 1 where every entry of a cell's block is masked (false in
/// `allowed`), 0 where any is allowed.
Eigen::MatrixXd maskedShade(const BoolMatrix& allowed, int maxRows, int maxCols);

} // namespace attnlab
