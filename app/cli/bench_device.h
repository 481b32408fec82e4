// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli bench --backend opencl|cuda[:N]`: an accelerator's whole-layer kernel timed
// end to end (upload, kernel, download), in TFLOP/s and, on a GPU, as a fraction of its float32
// peak, which its probe kernel measures in the same run.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace attnlab {
class AcceleratorDevice;
}

namespace attnlab::cli {

/// One layer of `heads` softmax heads of width d over n tokens under `mask`.
struct DeviceCase {
    int n = 4096, d = 64, heads = 16;
    std::string mask = "all";
    bool float64 = false;
    int repeat = 5, warmup = 1;
};

/// The device's peak and its cases: `one` alone, or the standard suite (cli.md) at its sizes
/// on a GPU and at n / 16 on any other device. Each case's error is against the CPU's float64
/// layer on its first 64 rows. `selector` names the device in the output.
nlohmann::json deviceBench(const AcceleratorDevice& device, const std::string& selector,
                           const std::optional<DeviceCase>& one, const DeviceCase& base,
                           bool skipProbe);

/// The text form of deviceBench's result.
std::string deviceBenchText(const nlohmann::json& result);

} // namespace attnlab::cli
