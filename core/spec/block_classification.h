// SPDX-License-Identifier: GPL-3.0-or-later
// The mask seen tile by tile: which tiles of the n x n mask are empty, partial or full, and the
// element mask of one tile. Structured masks are classified from their parameters (no n x n
// matrix); the fused kernel skips empty tiles and applies the element mask only to partial
// ones, and the GUI's block view draws the same classification.
#pragma once

#include "core/spec/mask.h"

#include <vector>

namespace attnlab::kernels {

enum class TileKind : unsigned char { Empty, Partial, Full };

/// Tiles of rowTile x colTile over an n x n mask; the last row and column of tiles may be
/// ragged when n is not a multiple of the tile size.
struct BlockClassification {
    int n = 0;
    int rowTile = 1, colTile = 1;
    int tileRows = 0, tileCols = 0; // number of tiles along each axis
    std::vector<TileKind> kinds;    // row-major, tileRows x tileCols

    TileKind at(int tileRow, int tileCol) const {
        return kinds[std::size_t(tileRow) * std::size_t(tileCols) + std::size_t(tileCol)];
    }
    /// Allowed entries are at most this many (exact for full tiles, a bound for partial ones).
    long long boundedEntries() const;
    /// How many tiles are of `kind`.
    long count(TileKind kind) const;
    /// The most tiles that are not empty in one row of tiles (the key blocks a query block reads).
    int widestTileRow() const;
};

/// The classification of `spec` over n tokens at tile size rowTile x colTile, exact for every
/// mask kind; validates the mask first (InputError as buildMask). Structured kinds cost O(1)
/// per tile; custom masks and undecided and/or combinations inspect only their own tiles.
BlockClassification classifyBlocks(const MaskSpec& spec, int n, int rowTile, int colTile);
/// The classification of an explicit boolean mask (brute force over every entry).
BlockClassification classifyBlocks(const BoolMatrix& mask, int rowTile, int colTile);

/// How many entries of `spec` over n tokens are allowed, counted tile by tile from the
/// classification (full tiles whole, partial ones through their element mask): no n x n matrix.
long long allowedEntries(const MaskSpec& spec, int n);

/// The element mask of the tile [s0, s0 + rows) x [t0, t0 + cols) of `spec` over n tokens.
/// Interval-shaped kinds (causal, window, causal_window, prefix, blocks, all, none) fill a row
/// at a time; the others evaluate each entry.
BoolMatrix tileMask(const MaskSpec& spec, int n, int s0, int rows, int t0, int cols);

/// The allowed keys of rows s0 .. s0 + rows - 1 as one interval [first, last] each (empty when
/// first > last), for the kinds whose rows are intervals (all, none, causal, window,
/// causal_window, prefix, blocks); false, with `ranges` untouched, for the others.
bool rowKeyRanges(const MaskSpec& spec, int s0, int rows,
                  std::vector<std::pair<long, long>>& ranges);

} // namespace attnlab::kernels
