// Pooling every head's weights to a thumbnail.
#include "core/explore/head_overview.h"

#include "core/explore/display_pooling.h"

namespace attnlab {

HeadOverview headOverview(const SideView& side, int cells) {
    HeadOverview overview;
    overview.cells = cells;
    for (const LayerView& layer : side.layers) {
        std::vector<Eigen::MatrixXd>& heads = overview.weights.emplace_back();
        for (const HeadView& head : layer.heads)
            heads.push_back(displayCells(head.weights.values, cells, cells));
    }
    return overview;
}

} // namespace attnlab
