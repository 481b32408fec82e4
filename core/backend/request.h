// SPDX-License-Identifier: GPL-3.0-or-later
// What a computation asks of a device (docs/architecture.md): one head with its mask, or one
// whole layer that keeps no maps, and the request a device decides on in `supports` before it
// is asked to compute.
#pragma once

#include "core/spec/mask.h"
#include "core/spec/mixer.h"
#include "core/spec/model_spec.h"

#include <string>
#include <vector>

namespace attnlab {

/// The precision of scalar type T.
template <class T>
constexpr Precision precisionOf() {
    return ScalarOps<T>::exact        ? Precision::Exact
           : std::is_same_v<T, float> ? Precision::Float32
                                      : Precision::Float64;
}

/// What a head asks of a device, in the terms `supports` decides on.
struct HeadRequest {
    MixerSpec::Kind mixer = MixerSpec::Kind::Softmax;
    Precision precision = Precision::Float64;
    int n = 0;              // queries = keys
    int p = 0;              // head width of Q and K
    int pv = 0;             // head width of V
    int tile = 0;           // key tile of the tiled evaluation (0: untiled)
    bool keepMaps = true;   // the n x n scores and weights are wanted
    bool hasBias = false;   // an n x n additive bias is uploaded
    int maskStackDepth = 1; // nesting of the mask expression (mask_program.h)
};

/// Whether a device takes a request, and when not, why (shown in the fallback notice).
struct Support {
    bool ok = true;
    std::string why;
};

/// One head's inputs: Q (n x p), K (n x p), V (n x pv), an optional additive bias (n x n), the
/// mask as its expression and, for the CPU, as the matrix the caller already built. `unmasked`
/// asks for the unmasked code path (properties.md §2.7), which only the CPU has.
template <class T>
struct HeadTask {
    const MixerSpec& mixer;
    const Matrix<T>& q;
    const Matrix<T>& k;
    const Matrix<T>& v;
    const Matrix<T>* bias; // may be null
    const MaskSpec& mask;
    const BoolMatrix& maskCells;
    bool keepMaps = true;
    bool unmasked = false;
};

/// The request a task makes (precision from T).
template <class T>
HeadRequest headRequest(const HeadTask<T>& task);

/// An earlier evaluation of a layer to take query blocks from (fused_attention.h, BlockReuse):
/// its concatenated head outputs, and which rows of the layer's input have changed since.
template <class T>
struct LayerReuse {
    const Matrix<T>& attention;
    std::vector<bool> changedRows;
};

/// One layer's attention without maps (every head, with its relative positions) over a batch
/// of sequences: projections q, k, v of the sequences' tokens stacked in order (`lengths` rows
/// each; empty: one sequence of all rows), positions i + offset within each sequence.
/// `queryRows` > 0: only the first rows are needed; `reuse`: the blocks an earlier evaluation
/// can give (both for a single sequence only).
template <class T>
struct LayerTask {
    const LayerSpec& layer;
    const PositionalSpec& positional;
    const Matrix<T>& q;
    const Matrix<T>& k;
    const Matrix<T>& v;
    std::vector<int> lengths = {};
    long offset = 0;
    int queryRows = -1;
    const LayerReuse<T>* reuse = nullptr;

    /// The rows of each sequence (one sequence of every row when `lengths` is empty).
    std::vector<int> sequenceLengths() const {
        return lengths.empty() ? std::vector<int>{int(q.rows())} : lengths;
    }
};

/// A layer computed whole: the concatenated head outputs (rows of every sequence stacked, x p_v)
/// and, per sequence, its all-masked rows.
template <class T>
struct LayerResult {
    Matrix<T> attention;
    std::vector<std::vector<int>> allMaskedRows;
};

} // namespace attnlab
