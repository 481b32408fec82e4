// SPDX-License-Identifier: GPL-3.0-or-later
// The forward maths of one head, the reference every kernel is tested against: the mixer's
// weights from scores under a mask, the tiled (flash) evaluation over key tiles with running
// accumulators, and ssm(a)'s recurrent or chunkwise scan, in each scalar type. The CPU kernels
// compile it once per instruction set for the CPU device's heads (cmake/CpuKernels.cmake).
#pragma once

#include "core/spec/mixer.h"

#include <vector>

namespace attnlab {

/// What one head computed.
template <class T>
struct HeadResult {
    Matrix<T> scores;  // S (for ssm: Q·Kᵀ)
    Matrix<T> weights; // A, so that output = A·V
    Matrix<T> output;
    std::vector<int> allMaskedRows;
};

/// The scale c a head of width p uses.
template <class T>
T mixerScale(const MixerSpec& spec, int p);

/// Weights A from scores S under `mask` (blocked keys get exactly 0; an all-masked row is 0).
template <class T>
Matrix<T> mixWeights(const MixerSpec& spec, const Matrix<T>& scores, const BoolMatrix& mask);

/// The output of an attention mixer evaluated over key tiles of length `tile` (the last tile
/// may be ragged) with running accumulators and, for softmax, a running max with rescaling.
/// Scores are computed tile by tile from Q, K and the optional bias.
template <class T>
Matrix<T> tiledOutput(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k,
                      const Matrix<T>& v, const Matrix<T>* bias, const BoolMatrix& mask, int tile);

/// The equivalent weight matrix of ssm(a): a^(s-t)·Q[s]·K[t] for t ≤ s (bidirectional:
/// a^|s-t|·Q[s]·K[t], diagonal counted twice).
template <class T>
Matrix<T> ssmWeights(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k);

/// ssm(a) output by the recurrent scan (chunk = 0) or chunkwise with chunk length `chunk`.
template <class T>
Matrix<T> ssmScan(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                  int chunk);

/// One head: scores, weights and output. `bias` may be null. Tiled/chunked evaluation of the
/// output is used when the spec asks for it.
template <class T>
HeadResult<T> attendHead(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k,
                         const Matrix<T>& v, const Matrix<T>* bias, const BoolMatrix& mask);

/// One head with no mask at all (properties.md §2.7): the unmasked code path. Attention mixers
/// weigh every key with whole-row operations (row max, row sum) and never tile; ssm takes no mask
/// anyway and is evaluated as by `attendHead`.
template <class T>
HeadResult<T> attendHeadUnmasked(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k,
                                 const Matrix<T>& v, const Matrix<T>* bias);

} // namespace attnlab
