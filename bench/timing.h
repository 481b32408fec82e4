// SPDX-License-Identifier: GPL-3.0-or-later
// The timing both benchmark executables use: a function run `warmup` times, then `repeat` times
// on the wall clock, summarised by median and minimum in milliseconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

struct Timing {
    double median, min;
};

/// The median and minimum of `values` (milliseconds); 0 when empty.
inline Timing summarise(std::vector<double> values) {
    if (values.empty()) return {0, 0};
    std::sort(values.begin(), values.end());
    return {values[values.size() / 2], values.front()};
}

template <class F>
Timing measure(int warmup, int repeat, F&& once) {
    for (int i = 0; i < warmup; ++i)
        once();
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        once();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    return summarise(std::move(ms));
}
