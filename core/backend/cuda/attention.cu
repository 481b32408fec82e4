// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA kernels of the attention backend: the shared arithmetic of shared/attention_rows.inc
// instantiated for float and double, and their launchers (cuda_kernels.h).
#include "core/backend/cuda/cuda_kernels.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace attnlab::cuda {

#define ATTNLAB_FN __device__ inline
#define ATTNLAB_GCONST const
#define ATTNLAB_GMUT
#define ATTNLAB_LOCAL
#define ATTNLAB_EXP(x) attnlab_exp(x)
#define ATTNLAB_BARRIER() __syncthreads()
#define ATTNLAB_GROUP_ANY(value, flag) __syncthreads_or(value)

__device__ inline float attnlab_exp(float x) {
    return expf(x);
}
__device__ inline double attnlab_exp(double x) {
    return ::exp(x);
}

#include "core/backend/shared/mask_eval.inc"

#define ATTNLAB_FMA(a, b, c) fmaf(a, b, c)
#include "core/backend/shared/peak_probe.inc"

// The peak probe: `steps` steps of attnlab_fma_chains per thread, one float out each.
__global__ void peakKernel(int steps, float* out) {
    const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
    out[i] = attnlab_fma_chains(float(i) * 1e-6f, steps);
}

namespace f32 {
using REAL = float;
#include "core/backend/shared/attention_rows.inc"
// The kernels after the device functions they call.
#include "core/backend/cuda/kernels.cuh"
} // namespace f32

namespace f64 {
using REAL = double;
#include "core/backend/shared/attention_rows.inc"
// The kernels after the device functions they call.
#include "core/backend/cuda/kernels.cuh"
} // namespace f64

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

int blocks(int count, int per) {
    return (count + per - 1) / per;
}

// Lets `kernel` use `sharedBytes` of shared memory (past the 48 KiB default).
void allowShared(const void* kernel, std::size_t sharedBytes) {
    check(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sharedBytes)),
        "shared memory opt-in");
}

} // namespace

template <class T>
void launchMaps(const DeviceHead<T>& h, cudaStream_t stream) {
    if constexpr (std::is_same_v<T, float>)
        f32::mapsKernel<<<blocks(h.n, 128), 128, 0, stream>>>(h);
    else
        f64::mapsKernel<<<blocks(h.n, 128), 128, 0, stream>>>(h);
    check(cudaGetLastError(), "maps kernel launch");
}

template <class T>
void launchWeighted(const DeviceHead<T>& h, cudaStream_t stream) {
    if (h.pv == 0) return;
    const dim3 grid(h.n, blocks(h.pv, 64)); // n in x: up to 2^31 - 1 blocks
    if constexpr (std::is_same_v<T, float>)
        f32::weightedKernel<<<grid, 64, 0, stream>>>(h);
    else
        f64::weightedKernel<<<grid, 64, 0, stream>>>(h);
    check(cudaGetLastError(), "weighted kernel launch");
}

template <class T>
void launchFused(const DeviceHead<T>& h, int group, std::size_t sharedBytes, cudaStream_t stream) {
    if constexpr (std::is_same_v<T, float>) {
        allowShared((const void*)f32::fusedKernel, sharedBytes);
        f32::fusedKernel<<<blocks(h.n, group), group, sharedBytes, stream>>>(h);
    } else {
        allowShared((const void*)f64::fusedKernel, sharedBytes);
        f64::fusedKernel<<<blocks(h.n, group), group, sharedBytes, stream>>>(h);
    }
    check(cudaGetLastError(), "fused kernel launch");
}

template <class T>
void launchLayer(const DeviceLayer<T>& l, int group, std::size_t sharedBytes, cudaStream_t stream) {
    const dim3 grid(blocks(l.longest, group), l.sequences * l.heads);
    if constexpr (std::is_same_v<T, float>) {
        allowShared((const void*)f32::layerKernel, sharedBytes);
        f32::layerKernel<<<grid, group, sharedBytes, stream>>>(l);
    } else {
        allowShared((const void*)f64::layerKernel, sharedBytes);
        f64::layerKernel<<<grid, group, sharedBytes, stream>>>(l);
    }
    check(cudaGetLastError(), "layer kernel launch");
}

void launchPeak(long items, int steps, float* out, cudaStream_t stream) {
    constexpr int kThreads = 256;
    peakKernel<<<unsigned(items / kThreads), kThreads, 0, stream>>>(steps, out);
    check(cudaGetLastError(), "peak probe launch");
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template void launchMaps<T>(const DeviceHead<T>&, cudaStream_t);                               \
    template void launchWeighted<T>(const DeviceHead<T>&, cudaStream_t);                           \
    template void launchFused<T>(const DeviceHead<T>&, int, std::size_t, cudaStream_t);            \
    template void launchLayer<T>(const DeviceLayer<T>&, int, std::size_t, cudaStream_t);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab::cuda
