// SPDX-License-Identifier: GPL-3.0-or-later
// locality, declared.
#include "core/checks/properties/locality/locality_unit.h"

#include "core/checks/properties/locality/locality_check.h"
#include "core/checks/properties/shared/perturbation_comparison.h"

namespace attnlab {

PropertyUnit localityUnit() {
    return {.check = makeLocalityCheck(),
            .displayName = "locality",
            .docs = {.guideHeading = "locality", .section = "2.3"},
            .comparison =
                [](const ComparisonSource& source) {
                    return perturbationComparison(source, DefaultPerturbedToken::Middle);
                },
            .dependencyMap = DependencyMapRole::Source,
            .blackBox = makeLocalityBlackBox()};
}

} // namespace attnlab
