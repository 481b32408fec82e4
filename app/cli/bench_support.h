// SPDX-License-Identifier: GPL-3.0-or-later
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
    // CPU seconds of all threads per run: the timed runs' total over their count. The kernel
    // accounts a running thread's time to the process when it sleeps or at a clock tick, so a
    // worker's share of a short run lands after the run ends (between runs, or in the next), and
    // the median run counts little of it: 1.03 CPU seconds per second for a 1.4 ms two-thread
    // call whose process used 1.94. The total keeps it: what the last run's worker leaves past
    // the loop, the warm-up's left inside it.
    double cpuMean = 0;
};

/// A JSON number, or NaN for null (printed as "nan").
double number(const nlohmann::json& j);

/// A CPU case's timing fields: seconds_median, seconds_min, cpu_seconds_median, cpu_seconds_mean.
nlohmann::json timingJson(const Timing& t);

/// Runs f `warmup` times untimed, then `repeat` times timed.
template <class F>
Timing timeRuns(F&& f, int warmup, int repeat) {
    for (int i = 0; i < warmup; ++i)
        f();
    std::vector<double> seconds, cpu;
    const double cpuStart = processCpuSeconds();
    for (int i = 0; i < repeat; ++i) {
        const double cpu0 = processCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        f();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        cpu.push_back(processCpuSeconds() - cpu0);
    }
    const double cpuTotal = processCpuSeconds() - cpuStart;
    std::sort(seconds.begin(), seconds.end());
    std::sort(cpu.begin(), cpu.end());
    return {seconds[seconds.size() / 2], seconds.front(), cpu[cpu.size() / 2], cpuTotal / repeat};
}

} // namespace attnlab::cli
