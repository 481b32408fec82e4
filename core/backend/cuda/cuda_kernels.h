// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA kernels' launchers (attention.cu), callable from plain C++: device pointers, sizes
// and the stream to launch on (the runtime's opaque handle, declared here as cuda_runtime_api.h
// declares it). Each throws std::runtime_error naming the CUDA error when a launch fails.
#pragma once

#include <cstddef>

typedef struct CUstream_st* cudaStream_t;

namespace attnlab::cuda {

/// One head on the device: inputs, the encoded mask, outputs (row-major, device memory).
template <class T>
struct DeviceHead {
    const T *q = nullptr, *k = nullptr, *v = nullptr, *bias = nullptr;
    const int *code = nullptr, *data = nullptr;
    int codeLength = 0, n = 0, p = 0, pv = 0, mixer = 0, hasBias = 0, bidirectional = 0, tile = 0;
    T scale = T(1), decay = T(1);
    T *scores = nullptr, *weights = nullptr, *output = nullptr;
    int* rowAllowed = nullptr;
};

/// One layer over a batch of sequences on the device (KernelLayer's fields, device memory).
template <class T>
struct DeviceLayer {
    const T *q = nullptr, *k = nullptr, *v = nullptr, *slopes = nullptr;
    const int *starts = nullptr, *programs = nullptr, *code = nullptr, *data = nullptr;
    int heads = 0, p = 0, pv = 0, mixer = 0, tile = 0, biasKind = 0;
    int sequences = 0, longest = 0;
    T scale = T(1);
    T* output = nullptr;
    int* rowAllowed = nullptr;
};

/// Scores, weights and rowAllowed, one thread per query row.
template <class T>
void launchMaps(const DeviceHead<T>& head, cudaStream_t stream);
/// output = weights · V.
template <class T>
void launchWeighted(const DeviceHead<T>& head, cudaStream_t stream);
/// The flash-style kernel: `group` queries per block, key tiles in shared memory
/// (`sharedBytes`), online softmax, fully masked tiles skipped.
template <class T>
void launchFused(const DeviceHead<T>& head, int group, std::size_t sharedBytes,
                 cudaStream_t stream);
/// The layer kernel: `group` queries per block, one block row per (sequence, head) pair.
template <class T>
void launchLayer(const DeviceLayer<T>& layer, int group, std::size_t sharedBytes,
                 cudaStream_t stream);

/// The peak probe on `items` threads (a multiple of 256), `steps` steps each, into `out`.
void launchPeak(long items, int steps, float* out, cudaStream_t stream);

} // namespace attnlab::cuda
