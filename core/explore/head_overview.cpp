// SPDX-License-Identifier: GPL-3.0-or-later
// Pooling every head's weights to a thumbnail.
#include "core/explore/head_overview.h"

#include "core/explore/display_pooling.h"

namespace attnlab {

HeadOverview headOverview(const SideBySide& sides, Side side, int cells) {
    HeadOverview overview;
    overview.cells = cells;
    for (std::size_t l = 0; l < sides.layerCount(); ++l) {
        std::vector<Eigen::MatrixXd>& heads = overview.weights.emplace_back();
        for (int h = 0; h < sides.headCount(l); ++h)
            heads.push_back(displayCells(sides.maps->weights(side, l, h).values, cells, cells));
    }
    return overview;
}

} // namespace attnlab
