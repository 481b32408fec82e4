// SPDX-License-Identifier: GPL-3.0-or-later
// Every layer and head of a side at a glance: each head's attention weights pooled to a small
// thumbnail (display_pooling.h keeps the peaks), computed with the views so that the explorer's
// overview grid only paints them.
#pragma once

#include "core/explore/side_by_side.h"

#include <vector>

namespace attnlab {

struct HeadOverview {
    /// [layer][head]: the weights, at most `cells` x `cells` (max-pooled when larger).
    std::vector<std::vector<Eigen::MatrixXd>> weights;
    int cells = 0;
};

/// Side length of a thumbnail, in cells.
inline constexpr int kOverviewCells = 48;

/// The weights of every layer and head of one side, pooled to at most cells x cells.
HeadOverview headOverview(const SideBySide& sides, Side side, int cells = kOverviewCells);

} // namespace attnlab
