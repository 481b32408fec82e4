// SPDX-License-Identifier: GPL-3.0-or-later
// Writing scenario files (scenario-format.md, version 1). Writing keeps every field in the form
// it was given, so save -> load gives the same scenario back. Files the scenario refers to (a
// mask's or a matrix's .npy) are written relative to the scenario's directory when it is known.
#pragma once

#include "core/model/scenario.h"

#include <filesystem>
#include <string>

namespace attnlab {

/// `directory`: where the JSON will be (file names relative to it); empty: file names absolute.
nlohmann::json scenarioToJson(const Scenario& scenario,
                              const std::filesystem::path& directory = {});
/// Pretty-printed JSON text, ending in a newline.
std::string scenarioText(const Scenario& scenario, const std::filesystem::path& directory = {});
/// Writes atomically: a temporary file beside the target, flushed, then renamed over it. Files
/// the scenario refers to are written relative to the target's directory.
void saveScenarioFile(const Scenario& scenario, const std::filesystem::path& path);
/// The file a scenario is saved to when the user chose `chosen`: with `.json` added when the name
/// has no suffix (so an Open dialog filtered on *.json shows it), else unchanged.
std::filesystem::path scenarioSavePath(const std::filesystem::path& chosen);

/// A number as it is written in files: a JSON number when the value is the decimal of a double
/// (0.5, 3), else the exact string "p/q".
nlohmann::json rationalJson(const Rational& q);

} // namespace attnlab
