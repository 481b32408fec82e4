// The CUDA kernels' launchers (attention.cu), callable from plain C++: device pointers and
// sizes in, nothing CUDA-specific in the signature. Each throws std::runtime_error naming the
// CUDA error when a launch fails.
#pragma once

#include <cstddef>

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

/// Scores, weights and rowAllowed, one thread per query row.
template <class T>
void launchMaps(const DeviceHead<T>& head);
/// output = weights · V.
template <class T>
void launchWeighted(const DeviceHead<T>& head);
/// The flash-style kernel: `group` queries per block, key tiles in shared memory
/// (`sharedBytes`), online softmax, fully masked tiles skipped.
template <class T>
void launchFused(const DeviceHead<T>& head, int group, std::size_t sharedBytes);

} // namespace attnlab::cuda
