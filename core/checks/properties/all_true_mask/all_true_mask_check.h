// SPDX-License-Identifier: GPL-3.0-or-later
// all-true-mask: the masked code path equals the model with no mask, output and gradient.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeAllTrueMaskCheck();

} // namespace attnlab
