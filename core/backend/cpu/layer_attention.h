// SPDX-License-Identifier: GPL-3.0-or-later
// The attention part of one model layer (every head, with its relative positions) through the
// fused kernel, for forward passes that keep no maps: no n x n mask, bias or weight matrix.
#pragma once

#include "core/backend/request.h"

namespace attnlab::kernels {

/// Whether the fused kernel computes this layer in scalar type T: float and double with the
/// softmax, softmax_like or raw mixer. An explicit tile size b becomes the kernel's key block:
/// the kernel is itself a flash-style evaluation over key tiles with a running max.
template <class T>
bool fusedLayerApplies(const LayerSpec& layer) {
    return std::is_floating_point_v<T> && layer.mixer.kind != MixerSpec::Kind::Ssm;
}

/// The concatenated head outputs (n x p_v) of the task's layer for its projections q, k, v of
/// one sequence (`lengths` unused), with RoPE (positions i + offset) or ALiBi as its
/// `positional` says, and the all-masked rows.
/// Requires fusedLayerApplies<T>(layer); InputError for an invalid mask. `queryRows` as
/// fusedAttention's: only the first rows are needed; `reuse`, the blocks to keep.
template <class T>
LayerResult<T> fusedLayerAttention(const LayerTask<T>& task);

} // namespace attnlab::kernels
