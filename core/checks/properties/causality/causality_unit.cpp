// SPDX-License-Identifier: GPL-3.0-or-later
// causality, declared.
#include "core/checks/properties/causality/causality_unit.h"

#include "core/checks/properties/causality/causality_check.h"
#include "core/checks/properties/shared/perturbation_comparison.h"

namespace attnlab {

PropertyUnit causalityUnit() {
    return {.check = makeCausalityCheck(),
            .displayName = "causality",
            .docs = {.guideHeading = "causality", .section = "2.4"},
            .comparison =
                [](const ComparisonSource& source) {
                    return perturbationComparison(source, DefaultPerturbedToken::Last);
                },
            .dependencyMap = DependencyMapRole::Fallback,
            .blackBox = makeCausalityBlackBox()};
}

} // namespace attnlab
