// SPDX-License-Identifier: GPL-3.0-or-later
// The comparison locality and causality are drawn with: one token perturbed, the witness's when
// the report names one, and every output row that moves.
#pragma once

#include "core/checks/property_comparison.h"

namespace attnlab {

/// The token perturbed when the report names none: the last (causality: no earlier output may
/// move) or the middle one (locality: the band that moves).
enum class DefaultPerturbedToken { Last, Middle };

PropertyComparison perturbationComparison(const ComparisonSource& source,
                                          DefaultPerturbedToken fallback);

} // namespace attnlab
