// SPDX-License-Identifier: GPL-3.0-or-later
// permutation-equivariance (f(P_σ X) = P_σ f(X)) and, `pooled`, permutation-invariance of the
// pooled readout Σ_i f(X)[i].
#pragma once

#include "core/checks/black_box.h"
#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeEquivarianceCheck(bool pooled);
/// The same properties measured on a black box (black_box.h).
std::shared_ptr<const BlackBoxProperty> makePermutationBlackBox(bool pooled);

} // namespace attnlab
