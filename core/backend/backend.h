// SPDX-License-Identifier: GPL-3.0-or-later
// The backend interface (docs/architecture.md): a backend (CPU, OpenCL, CUDA) lists the devices
// it found, says what it computes on, and names the device a choice without an index uses.
// The devices compute (device.h).
#pragma once

#include "core/backend/device.h"

#include <memory>
#include <string>
#include <vector>

namespace attnlab {

class Backend {
public:
    virtual ~Backend() = default;
    /// "cpu", "opencl" or "cuda".
    virtual std::string name() const = 0;
    /// The devices found, device i at index i (may be empty: then `status` says why).
    virtual const std::vector<std::unique_ptr<Device>>& devices() const = 0;
    /// One line about the backend: the device it computes on, or why it has none.
    virtual std::string status() const = 0;
    /// True when the default device is not the host CPU (auto only picks those).
    virtual bool accelerates() const = 0;
    /// The device `--backend <name>` computes on; nullptr when there is none.
    virtual const Device* defaultDevice() const = 0;
    /// Device `index`, or nullptr when there is no such device.
    const Device* device(int index) const;
};

} // namespace attnlab
