// SPDX-License-Identifier: GPL-3.0-or-later
// causality: no output depends on a later token, measured by perturbing every suffix.
#pragma once

#include "core/checks/black_box.h"
#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeCausalityCheck();
/// The same property measured on a black box (black_box.h).
std::shared_ptr<const BlackBoxProperty> makeCausalityBlackBox();

} // namespace attnlab
