// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli presets`: the built-in scenarios.
#include "arguments.h"
#include "commands.h"

#include "core/io/presets.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <ostream>

namespace attnlab::cli {

std::string presetsUsage() {
    return "usage: attnlab-cli presets [--json]\n\n"
           "Lists the built-in scenarios. Open one anywhere a scenario file is expected as\n"
           "builtin:NAME, e.g. `attnlab-cli run builtin:positional-counterexample`.\n\n"
           "  --json   print [{\"name\": ..., \"title\": ...}, ...]\n";
}

int presetsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
    const Arguments a(args, {"--json"}, {});
    if (a.help()) {
        out << presetsUsage();
        return 0;
    }
    a.expectPositionals(0, "");
    const auto presets = builtinPresets();
    if (a.flag("--json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& p : presets)
            list.push_back({{"name", p.name}, {"title", p.title}});
        out << list.dump(2) << "\n";
        return 0;
    }
    std::size_t width = 0;
    for (const auto& p : presets)
        width = std::max(width, p.name.size());
    for (const auto& p : presets)
        out << "builtin:" << std::left << std::setw(int(width) + 2) << p.name << p.title
            << (p.name == kDefaultPreset ? "  (default)" : "") << "\n";
    return 0;
}

} // namespace attnlab::cli
