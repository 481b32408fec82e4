// SPDX-License-Identifier: GPL-3.0-or-later
// The table of one variant of the CPU kernels, the CPU device's one head (the reference mixer,
// core/backend/head_forward.cpp, compiled into every variant) and the matrix product.
#include "core/backend/cpu/kernel_variant.h"

#include "core/backend/cpu/block_product.h"

namespace attnlab::kernels::ATTNLAB_CPU_VARIANT {

namespace {

template <class T>
HeadResult<T> attendHead(const HeadTask<T>& task) {
    if (task.unmasked)
        return attnlab::attendHeadUnmasked<T>(task.mixer, task.q, task.k, task.v, task.bias);
    return attnlab::attendHead<T>(task.mixer, task.q, task.k, task.v, task.bias, task.maskCells);
}

// Eigen's product packs a transposed factor as it packs a stored one, from where it lies.
template <class T>
void multiply(const Factor<T>& a, const Factor<T>& b, Eigen::Ref<Matrix<T>> out) {
    if (a.transposed && b.transposed)
        out.noalias() = a.stored.transpose() * b.stored.transpose();
    else if (a.transposed)
        out.noalias() = a.stored.transpose() * b.stored;
    else if (b.transposed)
        out.noalias() = a.stored * b.stored.transpose();
    else
        out.noalias() = a.stored * b.stored;
}

template <class T>
constexpr KernelsIn<T> kernelsIn{.fusedAttention = &fusedAttention<T>,
                                 .fusedLayerAttention = &fusedLayerAttention<T>,
                                 .maxPool = &maxPool<T>,
                                 .pooledWeights = &pooledWeights<T>,
                                 .attendHead = &attendHead<T>,
                                 .product = &multiply<T>};

} // namespace

#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
constexpr bool kFusedMultiplyAdd = true;
#else
constexpr bool kFusedMultiplyAdd = false;
#endif

constinit const KernelTable kernelTable{.float32 = kernelsIn<float>,
                                        .float64 = kernelsIn<double>,
                                        .vectorBits = kLanes<float> * 32,
                                        .fma = kFusedMultiplyAdd};

} // namespace attnlab::kernels::ATTNLAB_CPU_VARIANT
