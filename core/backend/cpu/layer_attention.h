// The attention part of one model layer (every head, with its relative positions) through the
// fused kernel, for forward passes that keep no maps: no n x n mask, bias or weight matrix.
#pragma once

#include "core/spec/model_spec.h"

#include <optional>
#include <vector>

namespace attnlab::kernels {

/// Whether the fused kernel computes this layer in scalar type T: float and double with the
/// softmax, softmax_like or raw mixer. An explicit tile size b becomes the kernel's key block:
/// the kernel is itself a flash-style evaluation over key tiles with a running max.
template <class T>
bool fusedLayerApplies(const LayerSpec& layer) {
    return std::is_floating_point_v<T> && layer.mixer.kind != MixerSpec::Kind::Ssm;
}

/// An earlier evaluation of the layer to take query blocks from (BlockReuse): its concatenated
/// head outputs, and which rows of the layer's input have changed since.
template <class T>
struct LayerReuse {
    const Matrix<T>& attention;
    std::vector<bool> changedRows;
};

/// The concatenated head outputs (n x p_v) of `layer` for projections q, k, v, with RoPE
/// (positions i + offset) or ALiBi as `positional` says; appends the all-masked rows to
/// `allMaskedRows`. Requires fusedLayerApplies<T>(layer); InputError for an invalid mask.
/// `queryRows` as fusedAttention's: only the first rows are needed; `reuse`, the blocks to keep.
template <class T>
Matrix<T> fusedLayerAttention(const LayerSpec& layer, const PositionalSpec& positional,
                              const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                              long offset, std::vector<int>& allMaskedRows, int queryRows = -1,
                              const LayerReuse<T>* reuse = nullptr);

} // namespace attnlab::kernels
