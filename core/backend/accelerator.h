// What the OpenCL and CUDA devices share on the host: one head's task as the plain numbers
// the kernels take (shared/attention_rows.inc), the limits a device is judged by, the work-group
// size of the fused kernel, the assembly of the result from the kernels' row-major buffers,
// and AcceleratorDevice, which joins them around the one step each backend does its own way.
#pragma once

#include "core/backend/device.h"
#include "core/backend/mask_program.h"

#include <cstdint>
#include <vector>

namespace attnlab {

/// The key tile of the fused (flash) evaluation when the mixer asks for none.
inline constexpr int kDefaultKeyTile = 32;

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// One head as kernel arguments. Mixer codes: 0 softmax, 1 softmax_like, 2 raw, 3 ssm.
template <class T>
struct KernelHead {
    int n = 0, p = 0, pv = 0;
    int mixer = 0;
    T scale = T(1);
    T decay = T(1);
    int tile = kDefaultKeyTile; // key tile of the fused evaluation
    bool fused = false;         // output by the fused kernel (else weights · V)
    bool hasBias = false;
    bool keepMaps = true;
    bool bidirectional = false; // ssm: both directions
    MaskProgram mask;           // for ssm: causal, or all when bidirectional
    RowMajor<T> q, k, v, bias;
};

/// The task in kernel form (row-major copies, encoded mask, resolved scale and tile).
template <class T>
KernelHead<T> kernelHead(const HeadTask<T>& task);

/// What a device offers, for `acceleratorSupport`.
struct DeviceLimits {
    bool fp64 = false;
    std::uint64_t globalBytes = 0;
    std::uint64_t maxAllocBytes = 0;
    std::uint64_t localBytes = 0; // per work-group / block
};

/// Bytes of local (shared) memory the fused kernel needs.
std::uint64_t fusedLocalBytes(int tile, int p, int pv, int group, int scalarBytes);
/// Whether an accelerator with these limits computes `request`, and why not.
Support acceleratorSupport(const HeadRequest& request, const DeviceLimits& limits);
/// Queries per work-group of the fused kernel for `head`: the largest power of two up to 64
/// (and up to `mostThreads`) whose local memory fits the device's; 1 when none does.
template <class T>
int fusedGroup(const KernelHead<T>& head, const DeviceLimits& limits, std::size_t mostThreads);

/// The buffers a kernel run fills, row-major.
template <class T>
struct KernelOutput {
    std::vector<T> scores, weights, output;
    std::vector<int> rowAllowed;
};

/// The head result from the kernels' buffers.
template <class T>
HeadResult<T> headResult(const KernelHead<T>& head, const KernelOutput<T>& out);

/// A device of an accelerated backend: judged by its limits, computing a head as kernelHead,
/// then the backend's `compute` (upload, kernels, download), then headResult.
class AcceleratorDevice : public Device {
public:
    AcceleratorDevice(DeviceInfo info, const DeviceLimits& limits)
        : Device(std::move(info)), limits_(limits) {}

    using Device::attend;
    Support supports(const HeadRequest& request) const override {
        return acceleratorSupport(request, limits_);
    }
    HeadResult<float> attend(const HeadTask<float>& task) const override { return run(task); }
    HeadResult<double> attend(const HeadTask<double>& task) const override { return run(task); }

protected:
    const DeviceLimits& limits() const { return limits_; }
    /// Runs the kernels on one head; throws std::runtime_error when the device fails.
    virtual KernelOutput<float> compute(const KernelHead<float>& head) const = 0;
    virtual KernelOutput<double> compute(const KernelHead<double>& head) const = 0;

private:
    template <class T>
    HeadResult<T> run(const HeadTask<T>& task) const {
        const KernelHead<T> head = kernelHead(task);
        return headResult(head, compute(head));
    }

    DeviceLimits limits_;
};

} // namespace attnlab
