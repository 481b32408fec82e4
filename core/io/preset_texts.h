// SPDX-License-Identifier: GPL-3.0-or-later
// The raw JSON text of each built-in scenario, compiled in from resources/presets/.
#pragma once

#include <span>
#include <string_view>

namespace attnlab {

struct PresetText {
    std::string_view name; // file name without .json
    std::string_view json;
};

/// Every built-in scenario, sorted by name.
std::span<const PresetText> builtinPresetTexts();

} // namespace attnlab
