// SPDX-License-Identifier: GPL-3.0-or-later
// The block view of a mask: the mask cut into square tiles of a chosen size (the last row and
// column of tiles ragged when the size does not divide n), each tile empty (a tiled kernel can
// skip it), partial or full, and the sparsity figures that follow.
#pragma once

#include "core/spec/block_classification.h"

#include <vector>

namespace attnlab {

/// The same three states the fused kernel uses to skip and mask tiles.
using TileState = kernels::TileKind;

struct TileMap {
    int tile = 1;                  // tile edge in entries
    int rows = 0, cols = 0;        // number of tile rows and columns
    std::vector<TileState> states; // row-major, rows x cols
    long long empty = 0, partial = 0, full = 0;
    long long allowedEntries = 0; // true entries of the whole mask
    long long entries = 0;        // all entries of the mask (mask rows x mask cols)

    /// The state of tile (r, c).
    TileState at(int r, int c) const { return states[std::size_t(r) * cols + c]; }
    /// rows x cols.
    long long tiles() const { return static_cast<long long>(rows) * cols; }
    /// The fraction of tiles a block-sparse kernel skips (empty / tiles; 0 for no tiles).
    double skippedFraction() const { return tiles() ? double(empty) / double(tiles()) : 0.0; }
    /// The fraction of mask entries that are allowed (0 for an empty mask).
    double allowedFraction() const {
        return entries ? double(allowedEntries) / double(entries) : 0.0;
    }
};

/// Classifies every tile of the square `mask` with the kernel's classification (tiles at the
/// edges cover only the entries that exist), and counts. Throws InputError when tile < 1.
TileMap classifyTiles(const BoolMatrix& mask, int tile);

} // namespace attnlab
