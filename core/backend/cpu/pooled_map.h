// SPDX-License-Identifier: GPL-3.0-or-later
// Screen-sized views of large maps: max-pooling an n x m map down to at most W x H cells so
// that peaks survive (an average would wash a single sharp weight out of a 4096² map).
#pragma once

#include "core/backend/cpu/fused_attention.h"
#include "core/base/scalar.h"

namespace attnlab::kernels {

/// What a pooled cell keeps of the block it covers.
enum class PoolBy {
    Largest,   // the largest entry (weights)
    Magnitude, // the entry of largest |value|, with its sign (scores, differences); on a tie, the
               // positive one
};

/// The map pooled to at most maxRows x maxCols cells: cell (i, j) is the largest entry (or the
/// entry of largest magnitude) of the block of ceil(rows/maxRows) x ceil(cols/maxCols) entries it
/// covers (ragged last blocks). Streams each column once; column strips spread over the CPU
/// threads. A map already small enough comes back unchanged. InputError when a limit is below 1.
template <class T>
Matrix<T> maxPool(const Matrix<T>& map, int maxRows, int maxCols, PoolBy by = PoolBy::Largest);

/// One head's attention weights (as attendHead's `weights`) max-pooled to at most
/// maxRows x maxCols cells like maxPool, computed tile by tile from Q and K in two passes (row
/// max and sum, then weights) without forming the n x n map; empty tiles cost nothing. Equals
/// maxPool(attendHead(...).weights, maxRows, maxCols) up to rounding. Mixers as fusedAttention.
template <class T>
Matrix<T> pooledWeights(const MixerSpec& mixer, const MaskSpec& mask, const HeadInputs<T>& head,
                        int maxRows, int maxCols);

} // namespace attnlab::kernels
