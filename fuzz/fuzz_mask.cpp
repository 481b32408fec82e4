// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the mask expression reader (the "mask" of a layer: kinds combined with and/or/not):
// the first byte chooses n in 1..16, the rest is placed as the mask of a one-layer scenario of
// n tokens. An accepted mask must survive save -> load and build into an n x n matrix.
#include "fuzz_support.h"

#include "core/io/scenario_reader.h"
#include "core/spec/mask.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    if (size == 0) return 0;
    const int n = 1 + data[0] % 16;
    const std::string_view mask = fuzz::text(data + 1, size - 1);
    const std::string input = R"({"format": "attnlab-scenario", "version": 1, "tokens": )"
                              R"({"arange": {"n": )" +
                              std::to_string(n) + R"(, "d": 1}}, "layers": [{"mask": )" +
                              std::string(mask) + "}]}";
    Scenario scenario;
    try {
        scenario = parseScenario(input);
    } catch (const InputError&) {
        return 0;
    }
    fuzz::checkRoundTrip(scenario, input);
    const BoolMatrix m = buildMask(scenario.model.layers.at(0).mask, n);
    if (m.rows() != n || m.cols() != n) fuzz::finding("buildMask gave the wrong shape", input);
    return 0;
}
