// SPDX-License-Identifier: GPL-3.0-or-later
// The property panel's checks and their parameters.
#include "core/explore/panel_checks.h"

#include "core/checks/check_registry.h"

#include <algorithm>

namespace attnlab {

std::vector<CheckSpec> panelChecks(const Scenario& scenario, const Transform& transform,
                                   const ChosenParameters& chosen) {
    std::vector<CheckSpec> checks = scenario.checks;
    for (const auto& check : propertyChecks()) {
        const bool listed = std::any_of(checks.begin(), checks.end(),
                                        [&](const auto& c) { return c.name == check->name(); });
        if (!listed) checks.push_back({check->name(), nlohmann::json::object()});
    }
    for (CheckSpec& c : checks) {
        if (const auto it = chosen.find(c.name); it != chosen.end())
            for (const auto& item : it->second.items())
                c.params[item.key()] = item.value();
        if (const PropertyUnit* unit = findPropertyUnit(c.name); unit && unit->followTransform)
            unit->followTransform(c.params, transform);
    }
    return checks;
}

} // namespace attnlab
