// SPDX-License-Identifier: GPL-3.0-or-later
// row-sums: the weights of softmax and softmax_like rows sum to 1.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeRowSumsCheck();

} // namespace attnlab
