// Writing scenario files (scenario-format.md, version 1). Writing keeps every field in the form
// it was given, so save -> load gives the same scenario back.
#pragma once

#include "core/model/scenario.h"

#include <filesystem>
#include <string>

namespace attnlab {

/// The scenario as JSON; a checkpoint's path is written relative to `directory` (the file's
/// own), absolute when none is given.
nlohmann::json scenarioToJson(const Scenario& scenario,
                              const std::filesystem::path& directory = {});
/// Pretty-printed JSON text, ending in a newline.
std::string scenarioText(const Scenario& scenario, const std::filesystem::path& directory = {});
/// Writes atomically: a temporary file beside the target, flushed, then renamed over it.
void saveScenarioFile(const Scenario& scenario, const std::filesystem::path& path);

/// A number as it is written in files: a JSON number when the value is the decimal of a double
/// (0.5, 3), else the exact string "p/q".
nlohmann::json rationalJson(const Rational& q);

} // namespace attnlab
