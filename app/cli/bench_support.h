// What both halves of `attnlab-cli bench` share: reading --mask, timing runs (median, fastest,
// CPU seconds), and printing a JSON number that may be null.
#pragma once

#include "core/backend/cpu/peak_probe.h"
#include "core/spec/mask.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace attnlab::cli {

/// all | causal | window:R | causal_window:R; UsageError otherwise.
MaskSpec parseBenchMask(const std::string& text);

struct Timing {
    double median = 0, min = 0;
    double cpuMedian = 0; // CPU seconds of all threads, median run
};

/// A JSON number, or NaN for null (printed as "nan").
double number(const nlohmann::json& j);

/// Runs f `warmup` times untimed, then `repeat` times timed.
template <class F>
Timing timeRuns(F&& f, int warmup, int repeat) {
    for (int i = 0; i < warmup; ++i)
        f();
    std::vector<double> seconds, cpu;
    for (int i = 0; i < repeat; ++i) {
        const double cpu0 = processCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        f();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        cpu.push_back(processCpuSeconds() - cpu0);
    }
    std::sort(seconds.begin(), seconds.end());
    std::sort(cpu.begin(), cpu.end());
    return {seconds[seconds.size() / 2], seconds.front(), cpu[cpu.size() / 2]};
}

} // namespace attnlab::cli
