// SPDX-License-Identifier: GPL-3.0-or-later
// The fused, tiled CPU attention kernel for float and double: query blocks x key blocks with an
// online softmax (a running shift and sum per query, rescaled only when a score rises past the
// shift by a slack: softmax_column.h), register-blocked block products, empty tiles of
// the mask skipped and the element mask applied only to partial tiles. Work is spread over
// heads x query blocks (one level of threads, never nested). No n x n matrix is formed: memory
// is O(n·p) plus one query block x key block tile per thread.
#pragma once

#include "core/backend/head_forward.h"
#include "core/spec/block_classification.h"

#include <algorithm>
#include <vector>

namespace attnlab::kernels {

/// Tile sizes of the kernel. 128 x 128 was the fastest measured with p = 64 on the development
/// machine (docs/performance.md), dense and windowed; any positive values give the same result
/// up to rounding.
struct KernelTiles {
    int queryBlock = 128;
    int keyBlock = 128;
};

/// The ALiBi bias of one head: -slope·|s - t|, or -slope·(s - t) when causal.
struct DistanceBias {
    double slope = 0;
    bool causal = false;
};

/// One head's inputs: Q and K (n x p and m x p), V (m x p_v), and an optional distance bias.
template <class T>
struct HeadInputs {
    const Matrix<T>* q = nullptr;
    const Matrix<T>* k = nullptr;
    const Matrix<T>* v = nullptr;
    std::optional<DistanceBias> bias;
};

/// What the kernel computed: one output per head (n x p_v) and the rows with no allowed key.
template <class T>
struct FusedResult {
    std::vector<Matrix<T>> outputs;
    std::vector<int> allMaskedRows;
};

/// The multiply-adds the kernel counts for `heads` over `grid` when it computes `computed` of the
/// `wanted` query blocks (every entry of a partial tile counted, and every block wanted as one of
/// the grid's): the work that decides whether its loop runs on more than one thread (parallelFor).
template <class T>
double fusedWork(const std::vector<HeadInputs<T>>& heads, const BlockClassification& grid,
                 long computed, long wanted) {
    if (heads.empty()) return 0;
    return double(heads.size()) * double(grid.boundedEntries()) *
           double(heads.front().q->cols() + heads.front().v->cols()) * double(computed) /
           double(std::max(1L, wanted));
}

/// An earlier evaluation of the same heads, from which query blocks are taken instead of
/// computed (a sweep that changes a few rows of Q, K and V at a time). A block is computed again
/// when one of its query rows, or a key in a tile it reads (not an empty tile), is among
/// `changedRows`; the others keep the rows of `outputs` (one per head). The kernel is
/// deterministic, so a kept block is the block it would compute, bit for bit, as long as the
/// earlier evaluation used the same key blocks.
template <class T>
class BlockReuse {
public:
    BlockReuse(std::vector<Matrix<T>> outputs, const std::vector<bool>& changedRows);
    const Matrix<T>& output(std::size_t head) const { return outputs_.at(head); }
    /// Whether it is an evaluation of these heads over n tokens (one output of n x p_v each).
    bool fits(const std::vector<HeadInputs<T>>& heads, int n) const;
    /// Whether query block `block` of `grid` must be computed.
    bool recomputes(const BlockClassification& grid, int block) const;

private:
    bool anyChanged(long from, long to) const { return changedBefore_[to] > changedBefore_[from]; }
    std::vector<Matrix<T>> outputs_;
    std::vector<long> changedBefore_; // [r]: how many of rows 0..r-1 changed
};

/// Attention of every head under one mask (validated; InputError as buildMask) with the mixer
/// softmax, softmax_like or raw (ssm refused with InputError). Equals attendHead's output up to
/// rounding; an all-masked row gives a zero row. Self-attention: Q, K and V have n rows.
/// `queryRows` in 0..n-1 asks for the first queryRows output rows only: query blocks wholly
/// past them are skipped (their rows 0), and no row past them is reported as all-masked.
/// With `reuse`, only the blocks it says are computed (all-masked rows: among those only).
template <class T>
FusedResult<T> fusedAttention(const MixerSpec& mixer, const MaskSpec& mask,
                              const std::vector<HeadInputs<T>>& heads, KernelTiles tiles = {},
                              int queryRows = -1, const BlockReuse<T>* reuse = nullptr);

} // namespace attnlab::kernels
