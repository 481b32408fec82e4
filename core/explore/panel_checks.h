// SPDX-License-Identifier: GPL-3.0-or-later
// The checks the explorer's property panel runs, with their parameters: the scenario's own first,
// then every other property; the parameters the user set in the window over the scenario's; and,
// where a parameter is left to "auto", a default that follows the explorer's transform as the
// property's unit says (shift-invariance also checks the shift c the Transform tab applies).
#pragma once

#include "core/model/scenario.h"
#include "core/spec/transform.h"

#include <map>
#include <string>
#include <vector>

namespace attnlab {

/// Per property name, the parameters set in the window (a JSON object; absent keys are "auto").
using ChosenParameters = std::map<std::string, nlohmann::json>;

/// The panel's checks in order, each with the parameters it runs with.
std::vector<CheckSpec> panelChecks(const Scenario& scenario, const Transform& transform,
                                   const ChosenParameters& chosen = {});

} // namespace attnlab
