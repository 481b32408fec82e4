// SPDX-License-Identifier: GPL-3.0-or-later
// logit-symmetry (properties.md §2.5): its check, drawn as S beside Sᵀ.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit logitSymmetryUnit();

} // namespace attnlab
