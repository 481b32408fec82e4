// SPDX-License-Identifier: GPL-3.0-or-later
// Reading scenario files (scenario-format.md, version 1). Reading is strict: any unknown key,
// wrong type or shape, non-finite number, non-bijective permutation or oversized input is refused
// with the JSON path named, and JSON nested deeper than 64 levels is refused outright.
#pragma once

#include "core/model/scenario.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab {

/// Parses and validates a scenario from JSON text; file names in it (a checkpoint, a `file` mask's
/// path, a matrix's {"npy": ...}) are relative to `directory` (empty: the working directory).
Scenario parseScenario(std::string_view text, const std::filesystem::path& directory = {});
/// Reads a file (file names in it relative to its directory); the message names the file when it
/// cannot be read or parsed.
Scenario loadScenarioFile(const std::filesystem::path& path);
/// "builtin:NAME" opens a built-in preset, anything else is a file path.
Scenario loadScenario(const std::string& source);

} // namespace attnlab
