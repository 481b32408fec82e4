// Tile classification of a mask.
#include "mask_tiles.h"

#include "error.h"

#include <algorithm>

namespace attnlab {

TileMap classifyTiles(const BoolMatrix& mask, int tile) {
    if (tile < 1) throw InputError("tile: must be a positive integer");
    const auto n = mask.rows(), m = mask.cols();
    TileMap map;
    map.tile = tile;
    map.rows = static_cast<int>((n + tile - 1) / tile);
    map.cols = static_cast<int>((m + tile - 1) / tile);
    map.states.reserve(std::size_t(map.rows) * map.cols);
    map.entries = static_cast<long long>(n) * m;
    for (int r = 0; r < map.rows; ++r) {
        const Eigen::Index r0 = Eigen::Index(r) * tile, h = std::min<Eigen::Index>(tile, n - r0);
        for (int c = 0; c < map.cols; ++c) {
            const Eigen::Index c0 = Eigen::Index(c) * tile;
            const Eigen::Index w = std::min<Eigen::Index>(tile, m - c0);
            const long long allowed = mask.block(r0, c0, h, w).count();
            map.allowedEntries += allowed;
            TileState state = TileState::Partial;
            if (allowed == 0) {
                state = TileState::Empty;
                ++map.empty;
            } else if (allowed == static_cast<long long>(h) * w) {
                state = TileState::Full;
                ++map.full;
            } else {
                ++map.partial;
            }
            map.states.push_back(state);
        }
    }
    return map;
}

} // namespace attnlab
