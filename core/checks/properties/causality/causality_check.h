// SPDX-License-Identifier: GPL-3.0-or-later
// causality: no output depends on a later token, measured by perturbing every suffix.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeCausalityCheck();

} // namespace attnlab
