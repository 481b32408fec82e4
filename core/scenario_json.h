// Reading and writing scenario files (scenario-format.md, version 1). Reading is strict:
// any unknown key, wrong type or shape, non-finite number, non-bijective permutation or
// oversized input is refused with the JSON path named, and JSON nested deeper than 64 levels is
// refused outright. Writing keeps every field in the form it was given, so save → load gives the
// same scenario back.
#pragma once

#include "scenario.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab {

/// Parses and validates a scenario from JSON text.
Scenario parseScenario(std::string_view text);
/// Reads a file; the message names the file when it cannot be read or parsed.
Scenario loadScenarioFile(const std::filesystem::path& path);
/// "builtin:NAME" opens a built-in preset, anything else is a file path.
Scenario loadScenario(const std::string& source);

nlohmann::json scenarioToJson(const Scenario& scenario);
/// Pretty-printed JSON text, ending in a newline.
std::string scenarioText(const Scenario& scenario);
/// Writes atomically: a temporary file beside the target, flushed, then renamed over it.
void saveScenarioFile(const Scenario& scenario, const std::filesystem::path& path);

/// A number as it is written in files: a JSON number when the value is the decimal of a double
/// (0.5, 3), else the exact string "p/q".
nlohmann::json rationalJson(const Rational& q);

} // namespace attnlab
