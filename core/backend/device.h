// The devices a computation can run on, as `attnlab-cli devices` and the GUI's backend chooser
// show them. The CPU (Eigen) is always present and always last.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

struct DeviceInfo {
    std::string backend; // "cpu", "opencl", "cuda"
    std::string name;
    std::string type; // "cpu", "gpu", "accelerator"
    std::uint64_t memoryBytes = 0;
    std::vector<std::string> features;
};

/// Every device of every backend compiled in (registry.h), CPU last.
std::vector<DeviceInfo> listDevices();
/// The CPU device: model name, logical cores, memory and the precisions it supports.
DeviceInfo cpuDevice();

} // namespace attnlab
