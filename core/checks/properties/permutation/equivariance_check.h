// SPDX-License-Identifier: GPL-3.0-or-later
// permutation-equivariance (f(P_σ X) = P_σ f(X)) and, `pooled`, permutation-invariance of the
// pooled readout Σ_i f(X)[i].
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeEquivarianceCheck(bool pooled);

} // namespace attnlab
