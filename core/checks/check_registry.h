// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of every property (cli.md's property table): each property's unit (its check, the
// name the window shows, its documentation, its drawn comparison; property_unit.h), finding one
// by name, parsing `--property NAME:key=value,...`, and running a scenario's checks in order.
#pragma once

#include "core/checks/property_check.h"
#include "core/checks/property_unit.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// Every property, in cli.md's order (that of properties.md's sections).
const std::vector<PropertyUnit>& propertyUnits();
/// The property called `name`, or nullptr.
const PropertyUnit* findPropertyUnit(const std::string& name);
/// Every property's check, in the same order.
const std::vector<const PropertyCheck*>& propertyChecks();
/// The check called `name`, or nullptr.
const PropertyCheck* findPropertyCheck(const std::string& name);
/// The number of the section of docs/properties.md that states the property called `name`
/// ("2.3" for locality; "" for an unknown name).
std::string propertySection(const std::string& name);
/// What the window calls the property `name` (`name` itself when no property is called so).
std::string propertyDisplayName(const std::string& name);

/// Every property measurable on a black box (black_box.h), in the catalogue's order: the units'
/// black-box forms, then `prefix-consistency` and `mask`, which only a black box is checked for.
const std::vector<const BlackBoxProperty*>& blackBoxProperties();
/// The black-box property called `name`, or nullptr.
const BlackBoxProperty* findBlackBoxProperty(const std::string& name);

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
