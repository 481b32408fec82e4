// SPDX-License-Identifier: GPL-3.0-or-later
// logit-symmetry: S = Sᵀ in every layer and head.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeLogitSymmetryCheck();

} // namespace attnlab
