// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the libFuzzer targets: the input as text, and what counts as a finding. A refusal
// must be an InputError; any other exception escapes LLVMFuzzerTestOneInput and aborts, which
// libFuzzer records as a crash, as it does a sanitizer report, a timeout or an over-large
// allocation.
#pragma once

#include "core/base/error.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace attnlab::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Prints what broken promise was found, with the input's text, and aborts.
[[noreturn]] inline void finding(const std::string& what, std::string_view input) {
    std::fprintf(stderr, "FINDING: %s\ninput: %.*s\n", what.c_str(), int(input.size()),
                 input.data());
    std::abort();
}

/// Saving a parsed scenario and reading the text back must give an equal scenario.
inline void checkRoundTrip(const Scenario& scenario, std::string_view input) {
    const std::string saved = scenarioText(scenario);
    try {
        if (!(parseScenario(saved) == scenario))
            finding("save -> load gives a different scenario:\n" + saved, input);
    } catch (const InputError& e) {
        finding(std::string("the saved scenario is refused: ") + e.what() + "\n" + saved, input);
    }
}

} // namespace attnlab::fuzz
