// SPDX-License-Identifier: GPL-3.0-or-later
// The block view's figures, from the fused kernel's tile classification.
#include "core/spec/mask_tiles.h"

#include "core/base/error.h"

namespace attnlab {

TileMap classifyTiles(const BoolMatrix& mask, int tile) {
    if (tile < 1) throw InputError("tile: must be a positive integer");
    const kernels::BlockClassification blocks = kernels::classifyBlocks(mask, tile, tile);
    TileMap map;
    map.tile = tile;
    map.rows = blocks.tileRows;
    map.cols = blocks.tileCols;
    map.states = blocks.kinds;
    map.empty = blocks.count(TileState::Empty);
    map.partial = blocks.count(TileState::Partial);
    map.full = blocks.count(TileState::Full);
    map.allowedEntries = mask.count();
    map.entries = static_cast<long long>(mask.rows()) * mask.cols();
    return map;
}

} // namespace attnlab
