// SPDX-License-Identifier: GPL-3.0-or-later
// permutation-equivariance and permutation-invariance (properties.md §2.1, §2.2): their check,
// drawn as f(P X) beside P f(X).
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit permutationEquivarianceUnit();
PropertyUnit permutationInvarianceUnit();

} // namespace attnlab
