// SPDX-License-Identifier: GPL-3.0-or-later
// What the OpenCL and CUDA devices share on the host: one head's task, and one layer's over a
// batch of sequences, as the plain numbers the kernels take (shared/attention_rows.inc), the
// limits a device is judged by, the work-group size of the fused kernel, the assembly of the
// result from the kernels' row-major buffers, the pool of device buffers a device keeps, and
// AcceleratorDevice, which joins them around the one step each backend does its own way.
#pragma once

#include "core/backend/device.h"
#include "core/backend/mask_program.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace attnlab {

/// The key tile of the fused (flash) evaluation when the mixer asks for none.
inline constexpr int kDefaultKeyTile = 32;

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
    RowMajorMatrix<T> q, k, v, bias;
};

/// The task in kernel form (row-major copies, encoded mask, resolved scale and tile).
template <class T>
KernelHead<T> kernelHead(const HeadTask<T>& task);

/// One layer (every head) over a batch of sequences as kernel arguments (attnlab_layer_rows):
/// the sequences' rows stacked, each head's columns side by side, RoPE already applied.
template <class T>
struct KernelLayer {
    int heads = 0, p = 0, pv = 0;
    int mixer = 0;
    T scale = T(1);
    int tile = kDefaultKeyTile;
    int biasKind = 0;            // 0 none, 2 ALiBi -slope·|s - t|, 3 ALiBi -slope·(s - t)
    int longest = 0;             // rows of the longest sequence
    std::vector<int> starts;     // first row of each sequence, then the row count
    std::vector<int> programs;   // per sequence: offset and length in `code`, offset in `data`
    std::vector<int> code, data; // the sequences' mask programs, one after the other
    std::vector<T> slopes;       // per head (ALiBi)
    RowMajorMatrix<T> q, k, v;

    int sequences() const { return int(starts.size()) - 1; }
    int rows() const { return starts.back(); }
};

/// Sequences [first, last) of the task (whose rows start at `firstRow`) in kernel form; throws
/// InputError for a mask invalid at a sequence's length.
template <class T>
KernelLayer<T> kernelLayer(const LayerTask<T>& task, std::size_t first, std::size_t last,
                           Eigen::Index firstRow);

/// What a device offers, for `acceleratorSupport`.
struct DeviceLimits {
    bool fp64 = false;
    int computeUnits = 1; // compute units (OpenCL), multiprocessors (CUDA)
    std::uint64_t globalBytes = 0;
    std::uint64_t maxAllocBytes = 0;
    std::uint64_t localBytes = 0; // per work-group / block
};

/// Bytes of local (shared) memory the fused kernel needs.
std::uint64_t fusedLocalBytes(int tile, int p, int pv, int group, int scalarBytes);
/// Queries per work-group of the fused kernel: the largest power of two up to 64 (and up to
/// `mostThreads`) whose local memory fits the device's; 1 when none does.
int fusedGroup(int tile, int p, int pv, int scalarBytes, const DeviceLimits& limits,
               std::size_t mostThreads);
/// Whether an accelerator with these limits computes `request`, and why not.
Support acceleratorSupport(const HeadRequest& request, const DeviceLimits& limits);

/// The buffers a kernel run fills, row-major.
template <class T>
struct KernelOutput {
    std::vector<T> scores, weights, output;
    std::vector<int> rowAllowed;
};

/// The head result from the kernels' buffers.
template <class T>
HeadResult<T> headResult(const KernelHead<T>& head, const KernelOutput<T>& out);

/// What a device buffer of the pool holds: one buffer per role, kept between calls.
enum class BufferRole {
    Q,
    K,
    V,
    Bias,
    Code,
    Data,
    Output,
    Allowed,
    Scores,
    Weights,
    Starts,
    Programs,
    Slopes,
    Peak
};

/// Device buffers kept from one call to the next, one per role (an input, an output), each
/// grown to the largest size asked of it and never shrunk: a sweep of same-sized forwards
/// allocates once. `Buffer` is the backend's handle (movable); `allocate(bytes)` makes one.
template <class Buffer>
class BufferPool {
public:
    template <class Allocate>
    Buffer& get(BufferRole role, std::size_t bytes, Allocate&& allocate) {
        Slot& slot = slots_[role];
        bytes = std::max<std::size_t>(bytes, 1);
        if (!slot.buffer || slot.bytes < bytes) {
            slot.buffer.reset(); // free the smaller one first
            slot.buffer.emplace(allocate(bytes));
            slot.bytes = bytes;
        }
        return *slot.buffer;
    }
    /// Bytes held by every buffer.
    std::size_t bytes() const {
        std::size_t total = 0;
        for (const auto& [role, slot] : slots_)
            total += slot.bytes;
        return total;
    }
    /// Frees every buffer (after a device error, so that no half-written one is reused).
    void clear() { slots_.clear(); }
    /// Frees the n x n maps of a head computed with maps (the largest buffers a pool holds).
    void releaseMaps() {
        slots_.erase(BufferRole::Scores);
        slots_.erase(BufferRole::Weights);
    }

private:
    struct Slot {
        std::optional<Buffer> buffer;
        std::size_t bytes = 0;
    };
    std::map<BufferRole, Slot> slots_;
};

/// The most (sequence, head) pairs one layer launch takes (CUDA's grid y extent).
inline constexpr int kMostLayerPairs = 65535;

/// The launches a layer over sequences of these lengths takes: consecutive runs [first, last)
/// of sequences, as many per launch as half the device memory holds (Q, K, V and the output of
/// every head), within one allocation each and kMostLayerPairs. Throws std::runtime_error when
/// one sequence alone does not fit, saying how much it needs.
std::vector<std::pair<std::size_t, std::size_t>> layerLaunches(const std::vector<int>& lengths,
                                                               int heads, int p, int pv,
                                                               int scalarBytes,
                                                               const DeviceLimits& limits);

/// A device of an accelerated backend: judged by its limits, computing a head as kernelHead,
/// then the backend's `compute` (upload, kernels, download), then headResult; a layer over a
/// batch of sequences as kernelLayer in as few launches as its memory allows (one when it
/// fits), then the backend's `computeLayer`.
class AcceleratorDevice : public Device {
public:
    AcceleratorDevice(DeviceInfo info, const DeviceLimits& limits)
        : Device(std::move(info)), limits_(limits) {}

    using Device::attend;
    using Device::attendLayer;
    Support supports(const HeadRequest& request) const override {
        return acceleratorSupport(request, limits_);
    }
    HeadResult<float> attend(const HeadTask<float>& task) const override { return run(task); }
    HeadResult<double> attend(const HeadTask<double>& task) const override { return run(task); }
    /// Softmax, softmax_like and raw (not ssm), in float32, and in float64 where the device has
    /// it, with a mask the kernels' evaluation stack holds.
    bool attendsLayer(const LayerSpec& layer, Precision precision) const override;
    LayerResult<float> attendLayer(const LayerTask<float>& task) const override {
        return runLayer(task);
    }
    LayerResult<double> attendLayer(const LayerTask<double>& task) const override {
        return runLayer(task);
    }
    /// The device's float32 multiply-add peak in GFLOP/s, measured: the best of three runs of
    /// the probe kernel (shared/peak_probe.inc) on 8192 work-items per compute unit, after one
    /// to warm up. Throws std::runtime_error when the device fails.
    double measurePeakGflops() const;

protected:
    const DeviceLimits& limits() const { return limits_; }
    /// Runs the kernels on one head; throws std::runtime_error when the device fails.
    virtual KernelOutput<float> compute(const KernelHead<float>& head) const = 0;
    virtual KernelOutput<double> compute(const KernelHead<double>& head) const = 0;
    /// Runs the layer kernel once: `output` (rows x heads·pv) and `rowAllowed` (rows) filled.
    virtual KernelOutput<float> computeLayer(const KernelLayer<float>& layer) const = 0;
    virtual KernelOutput<double> computeLayer(const KernelLayer<double>& layer) const = 0;
    /// Runs the peak probe on `items` work-items of `steps` steps each and waits for it.
    virtual void runPeakProbe(long items, int steps) const = 0;

private:
    template <class T>
    HeadResult<T> run(const HeadTask<T>& task) const {
        const KernelHead<T> head = kernelHead(task);
        return headResult(head, compute(head));
    }
    template <class T>
    LayerResult<T> runLayer(const LayerTask<T>& task) const;

    DeviceLimits limits_;
};

/// An AcceleratorDevice whose backend writes its computations once, as templates over the scalar
/// type: Derived's run(head), runLayer(layer) and runPeak(items, steps), each called inside
/// Derived's guarded(work) (its lock, its context, its error handling).
template <class Derived>
class KernelDevice : public AcceleratorDevice {
public:
    using AcceleratorDevice::AcceleratorDevice;

protected:
    KernelOutput<float> compute(const KernelHead<float>& head) const override {
        return self().guarded([&] { return self().run(head); });
    }
    KernelOutput<double> compute(const KernelHead<double>& head) const override {
        return self().guarded([&] { return self().run(head); });
    }
    KernelOutput<float> computeLayer(const KernelLayer<float>& layer) const override {
        return self().guarded([&] { return self().runLayer(layer); });
    }
    KernelOutput<double> computeLayer(const KernelLayer<double>& layer) const override {
        return self().guarded([&] { return self().runLayer(layer); });
    }
    void runPeakProbe(long items, int steps) const override {
        self().guarded([&] { self().runPeak(items, steps); });
    }

private:
    const Derived& self() const { return static_cast<const Derived&>(*this); }
};

} // namespace attnlab
