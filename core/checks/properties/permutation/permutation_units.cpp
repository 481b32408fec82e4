// SPDX-License-Identifier: GPL-3.0-or-later
// The two permutation properties, declared.
#include "core/checks/properties/permutation/permutation_units.h"

#include "core/checks/properties/permutation/equivariance_check.h"

namespace attnlab {

PropertyUnit permutationEquivarianceUnit() {
    return {.check = makeEquivarianceCheck(false),
            .displayName = "permutation-equivariance",
            .docs = {.guideHeading = "permutation-equivariance", .section = "2.1"},
            .comparison = permutationComparison,
            .blackBox = makePermutationBlackBox(false)};
}

PropertyUnit permutationInvarianceUnit() {
    return {.check = makeEquivarianceCheck(true),
            .displayName = "permutation-invariance",
            .docs = {.guideHeading = "permutation-invariance", .section = "2.2"},
            .comparison = permutationComparison,
            .blackBox = makePermutationBlackBox(true)};
}

} // namespace attnlab
