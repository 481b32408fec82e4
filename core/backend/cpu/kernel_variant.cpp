// The table of one variant of the CPU kernels, and the CPU device's one head: the reference
// mixer (core/spec/mixer.cpp, compiled into every variant) for the task.
#include "core/backend/cpu/kernel_variant.h"

namespace attnlab::kernels::ATTNLAB_CPU_VARIANT {

namespace {

template <class T>
HeadResult<T> attendHead(const HeadTask<T>& task) {
    if (task.unmasked)
        return attnlab::attendHeadUnmasked<T>(task.mixer, task.q, task.k, task.v, task.bias);
    return attnlab::attendHead<T>(task.mixer, task.q, task.k, task.v, task.bias, task.maskCells);
}

template <class T>
constexpr KernelsIn<T> kernelsIn{&fusedAttention<T>, &fusedLayerAttention<T>, &maxPool<T>,
                                 &pooledWeights<T>, &attendHead<T>};

} // namespace

constinit const KernelTable kernelTable{kernelsIn<float>, kernelsIn<double>};

} // namespace attnlab::kernels::ATTNLAB_CPU_VARIANT
