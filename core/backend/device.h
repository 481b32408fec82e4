// SPDX-License-Identifier: GPL-3.0-or-later
// A device a computation runs on (docs/architecture.md): what it is, as `attnlab-cli devices`
// and the GUI's backend chooser show it, whether it takes a request, and the computation
// itself. Every backend's devices derive from Device; the CPU's computes everything.
#pragma once

#include "core/backend/head_forward.h"
#include "core/backend/request.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

enum class DeviceKind {
    Cpu,
    Gpu,
    Accelerator,
    Other, // a type OpenCL reports that is none of the above
};

/// "cpu", "gpu", "accelerator" or "other".
std::string deviceKindName(DeviceKind kind);

struct DeviceInfo {
    std::string backend; // "cpu", "opencl", "cuda"
    int index = 0;       // position among the backend's devices
    DeviceKind kind = DeviceKind::Cpu;
    std::string name;
    std::uint64_t memoryBytes = 0;
    std::vector<std::string> features;

    /// How `--backend` names this device: "cuda:1".
    std::string selector() const;
};

class Device {
public:
    explicit Device(DeviceInfo info) : info_(std::move(info)) {}
    virtual ~Device() = default;
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceInfo& info() const { return info_; }

    /// Whether `attend` can compute this request, and why not.
    virtual Support supports(const HeadRequest& request) const = 0;
    /// One head: scores, weights (empty unless keepMaps), output, all-masked rows. Throws
    /// std::runtime_error when the device fails.
    virtual HeadResult<float> attend(const HeadTask<float>& task) const = 0;
    virtual HeadResult<double> attend(const HeadTask<double>& task) const = 0;
    /// Exact arithmetic: only the CPU device overrides this; the default throws.
    virtual HeadResult<Rational> attend(const HeadTask<Rational>& task) const;

    /// Whether `attendLayer` computes `layer` in `precision`; by default no device does, and
    /// layers go head by head.
    virtual bool attendsLayer(const LayerSpec& layer, Precision precision) const;
    /// Every head of one layer over every sequence of the task at once, keeping no maps (the
    /// CPU sequence by sequence, an accelerator in one launch where its memory allows).
    /// Requires attendsLayer (the defaults throw std::logic_error); InputError for an invalid
    /// mask, std::runtime_error when the device fails.
    virtual LayerResult<float> attendLayer(const LayerTask<float>& task) const;
    virtual LayerResult<double> attendLayer(const LayerTask<double>& task) const;
    virtual LayerResult<Rational> attendLayer(const LayerTask<Rational>& task) const;

private:
    DeviceInfo info_;
};

} // namespace attnlab
