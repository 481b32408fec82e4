// SPDX-License-Identifier: GPL-3.0-or-later
// What one instruction-set variant of the CPU kernels provides (cmake/CpuKernels.cmake): the
// kernels of fused_attention.h, layer_attention.h and pooled_map.h and the CPU device's one head,
// and the model's matrix products, in float and double, as a table of functions. kernel_dispatch.h
// picks one table at run time.
#pragma once

#include "core/backend/cpu/layer_attention.h"
#include "core/backend/cpu/matrix_product.h"
#include "core/backend/cpu/pooled_map.h"

namespace attnlab::kernels {

/// The kernels of one variant in scalar type T.
template <class T>
struct KernelsIn {
    FusedResult<T> (*fusedAttention)(const MixerSpec&, const MaskSpec&,
                                     const std::vector<HeadInputs<T>>&, KernelTiles, int,
                                     const BlockReuse<T>*);
    LayerResult<T> (*fusedLayerAttention)(const LayerTask<T>&);
    Matrix<T> (*maxPool)(const Matrix<T>&, int, int, PoolBy);
    Matrix<T> (*pooledWeights)(const MixerSpec&, const MaskSpec&, const HeadInputs<T>&, int, int);
    /// The CPU device's one head: attendHead or attendHeadUnmasked (mixer.h) as the task says.
    HeadResult<T> (*attendHead)(const HeadTask<T>&);
    /// out = a·b, written in place (out is a·b's shape, a block of a larger matrix or not).
    void (*product)(const Factor<T>&, const Factor<T>&, Eigen::Ref<Matrix<T>>);
};

/// The kernels of one variant. Each variant defines one, constant-initialised (no code of the
/// variant runs before it is chosen): attnlab::kernels::<variant>::kernelTable.
struct KernelTable {
    KernelsIn<float> float32;
    KernelsIn<double> float64;
    int vectorBits = 128; // the width of the vectors its products and softmax run on
    bool fma = false;     // whether they fuse multiply and add

    template <class T>
    const KernelsIn<T>& in() const {
        if constexpr (std::is_same_v<T, float>)
            return float32;
        else
            return float64;
    }
};

} // namespace attnlab::kernels
