// SPDX-License-Identifier: GPL-3.0-or-later
// The prefixes of input rows that a model's first output rows read, layer by layer.
#include "core/model/row_reach.h"

#include <algorithm>

namespace attnlab {

std::vector<int> prefixReach(const MaskSpec& mask, int n) {
    const BoolMatrix allowed = buildMask(mask, n);
    std::vector<int> reach(static_cast<std::size_t>(n));
    int furthest = 0;
    for (int r = 0; r < n; ++r) {
        furthest = std::max(furthest, r + 1); // a row always reads its own input (residual, MLP)
        for (int t = n - 1; t >= furthest; --t)
            if (allowed(r, t)) {
                furthest = t + 1;
                break;
            }
        reach[std::size_t(r)] = furthest;
    }
    return reach;
}

std::vector<int> neededInputRows(const std::vector<std::vector<int>>& reaches, int rows) {
    std::vector<int> needed(reaches.size() + 1, rows);
    for (std::size_t l = reaches.size(); l-- > 0;) {
        const int out = needed[l + 1];
        needed[l] = out > 0 ? std::max(out, reaches[l].at(std::size_t(out - 1))) : 0;
    }
    return needed;
}

} // namespace attnlab
