// SPDX-License-Identifier: GPL-3.0-or-later
// The property panel's checks and their parameters.
#include "core/explore/panel_checks.h"

#include "core/checks/check_registry.h"
#include "core/checks/parameter_text.h"

#include <algorithm>

namespace attnlab {

namespace {

// shift-invariance's offsets when left to auto: its declared default, and the transform's shift c.
nlohmann::json offsetsWithShift(long c) {
    const PropertyCheck* check = findPropertyCheck("shift-invariance");
    const CheckParameter p = check->parameters().at(0); // parameters() returns a copy
    std::vector<long> offsets = parameterValue(p, p.defaultValue).get<std::vector<long>>();
    if (std::find(offsets.begin(), offsets.end(), c) == offsets.end()) offsets.push_back(c);
    return offsets;
}

} // namespace

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
        if (c.name == "shift-invariance" && !c.params.contains("offset") &&
            transform.kind == Transform::Kind::Shift && transform.shift != 0)
            c.params["offset"] = offsetsWithShift(transform.shift);
    }
    return checks;
}

} // namespace attnlab
