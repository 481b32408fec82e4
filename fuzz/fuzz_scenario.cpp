// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the scenario loader: any text is either refused with an InputError or gives a valid
// scenario whose saved text reads back as the same scenario.
#include "fuzz_support.h"

#include "core/io/scenario_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    const std::string_view input = fuzz::text(data, size);
    Scenario scenario;
    try {
        scenario = parseScenario(input);
        scenario.validate();
    } catch (const InputError&) {
        return 0;
    }
    fuzz::checkRoundTrip(scenario, input);
    return 0;
}
