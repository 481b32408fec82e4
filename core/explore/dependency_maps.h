// SPDX-License-Identifier: GPL-3.0-or-later
// The dependency maps a locality or causality report carries (details.dependency_map, the
// measured one, and details.bound_map, the one the masks imply, or for a probe's mask report
// details.intended_map, the mask the user meant) as matrices a view draws, and their difference:
// where the measurement leaves the bound (a probe's leaks and dead keys).
#pragma once

#include "core/checks/property_report.h"
#include "core/explore/side_by_side.h"

#include <optional>

namespace attnlab {

struct DependencyMaps {
    ViewMatrix measured; // 1 where output row s moved when input token t was perturbed
    ViewMatrix bound;    // 1 where the masks let row s depend on token t; empty when absent
    /// measured − bound: +1 where row s moved although the masks forbid it (the bound is
    /// broken), −1 where the masks allow a dependency the measurement did not see (slack), 0
    /// where they agree; empty without a bound of the same shape.
    ViewMatrix excess;
};

/// The report's maps; nullopt when it carries no measured map. A map that is not a rectangle
/// of 0/1 (or booleans) reads as an empty matrix rather than a wrong picture.
std::optional<DependencyMaps> dependencyMaps(const PropertyReport& report);

} // namespace attnlab
