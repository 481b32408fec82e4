// SPDX-License-Identifier: GPL-3.0-or-later
// The comparison the explorer draws for a property, chosen by its unit (the registry's,
// core/checks/property_unit.h) with the report's witness or its shrunk form, and evaluated into
// the side-by-side maps the window and the command line both show.
#pragma once

#include "core/checks/property_comparison.h"
#include "core/checks/property_report.h"
#include "core/explore/side_by_side.h"

#include <string>

namespace attnlab {

/// The comparison that shows `property` on `scenario`, taking its witness (the perturbed token,
/// the shift, the decode step, the failing σ) from `report` when one is given; with `shrunk`,
/// the report's shrunk witness, drawn on the few tokens it keeps. A name no property has gets the
/// scenario's permutation. Never throws: parameters the check would refuse are left at their
/// defaults.
PropertyComparison comparisonFor(const Scenario& scenario, const std::string& property,
                                 const PropertyReport* report = nullptr, bool shrunk = false);

/// Computes `comparison` on `scenario` (on its `tokens` only, when it names some, labelled by
/// their indices in the scenario): its sides titled with the property. Throws InputError as
/// compareSides does (e.g. a mask file that fits only the whole sequence).
SideBySide compare(const Scenario& scenario, const PropertyComparison& comparison);

} // namespace attnlab
