// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of every property check (cli.md's property table): finding one by name, parsing
// `--property NAME:key=value,...`, and running a scenario's checks in order.
#pragma once

#include "core/checks/property_check.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// Every property check, in cli.md's order.
const std::vector<std::unique_ptr<PropertyCheck>>& propertyChecks();
/// The check called `name`, or nullptr.
const PropertyCheck* findPropertyCheck(const std::string& name);
/// The number of the section of docs/properties.md that states the property called `name`
/// ("2.3" for locality; "" for an unknown name): the registry lists the checks in that order.
std::string propertySection(const std::string& name);

/// Runs the scenario's own checks (or `names` when non-empty, each "name" or
/// "name:key=value,...") and returns the reports in order. Throws InputError for unknown names.
/// The checks share the scenario's models: those of `models` when given (a caller running
/// checks one call at a time), else a cache made for this call.
std::vector<PropertyReport> runChecks(const Scenario& scenario,
                                      const std::vector<CheckSpec>& checks, std::uint64_t seed,
                                      const std::function<bool()>& cancelled = {},
                                      std::shared_ptr<ModelCache> models = {});

/// Parses "name" or "name:key=value,key=value" (values are JSON, or strings when not JSON).
CheckSpec parseCheckArgument(const std::string& text);

} // namespace attnlab
