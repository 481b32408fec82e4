// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in scenarios (resources/presets/), by name.
#pragma once

#include <string>
#include <vector>

namespace attnlab {

struct PresetInfo {
    std::string name;  // open with "builtin:" + name
    std::string title; // the scenario's "name" field
};

/// Every built-in scenario with its title, sorted by name.
std::vector<PresetInfo> builtinPresets();
/// The scenario the explorer and `attnlab-cli run` open by default.
inline constexpr const char* kDefaultPreset = "positional-counterexample";

} // namespace attnlab
