// SPDX-License-Identifier: GPL-3.0-or-later
// The pieces both halves of `attnlab-cli bench` share.
#include "bench_support.h"

#include "arguments.h"

#include <cmath>

namespace attnlab::cli {

MaskSpec parseBenchMask(const std::string& text) {
    const auto colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    if (colon == std::string::npos) {
        if (kind == "all") return MaskSpec::all();
        if (kind == "causal") return MaskSpec::causal();
    } else if (kind == "window" || kind == "causal_window") {
        const std::string r = text.substr(colon + 1);
        if (!r.empty() && r.find_first_not_of("0123456789") == std::string::npos && r.size() < 9)
            return kind == "window" ? MaskSpec::window(std::stoi(r))
                                    : MaskSpec::causalWindow(std::stoi(r));
    }
    throw UsageError("--mask must be all, causal, window:R or causal_window:R, got '" + text + "'");
}

double number(const nlohmann::json& j) {
    return j.is_null() ? std::nan("") : j.get<double>();
}

nlohmann::json timingJson(const Timing& t) {
    return {{"seconds_median", t.median},
            {"seconds_min", t.min},
            {"cpu_seconds_median", t.cpuMedian},
            {"cpu_seconds_mean", t.cpuMean}};
}

} // namespace attnlab::cli
