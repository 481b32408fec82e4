// SPDX-License-Identifier: GPL-3.0-or-later
// Listing the built-in scenarios.
#include "core/io/presets.h"

#include "core/io/preset_texts.h"

#include <nlohmann/json.hpp>

namespace attnlab {

std::vector<PresetInfo> builtinPresets() {
    std::vector<PresetInfo> list;
    for (const PresetText& preset : builtinPresetTexts()) {
        const auto doc = nlohmann::json::parse(preset.json, nullptr, false);
        std::string title = doc.is_object() && doc.contains("name") && doc["name"].is_string()
                                ? doc["name"].get<std::string>()
                                : std::string();
        list.push_back({std::string(preset.name), std::move(title)});
    }
    return list;
}

} // namespace attnlab
