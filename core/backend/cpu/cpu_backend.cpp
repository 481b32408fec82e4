// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: the host CPU as its one device.
#include "core/backend/cpu/cpu_backend.h"

#include "core/backend/cpu/cpu_device.h"
#include "core/backend/cpu/kernel_dispatch.h"

namespace attnlab {

namespace {

class CpuBackend final : public Backend {
public:
    CpuBackend() { devices_.push_back(makeCpuDevice()); }

    std::string name() const override { return "cpu"; }
    const std::vector<std::unique_ptr<Device>>& devices() const override { return devices_; }
    std::string status() const override {
        return "computes every request (the reference); " + kernels::cpuKernelsSummary();
    }
    bool accelerates() const override { return false; }
    const Device* defaultDevice() const override { return devices_.front().get(); }

private:
    std::vector<std::unique_ptr<Device>> devices_;
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() {
    return std::make_unique<CpuBackend>();
}

} // namespace attnlab
