// SPDX-License-Identifier: GPL-3.0-or-later
// shift-invariance: the scores do not change when positions are offset.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeShiftInvarianceCheck();
/// Its parameter `offset` (its default, 1 and 7, is written once: the window's default offsets
/// come from here).
const CheckParameter& shiftOffsetParameter();

} // namespace attnlab
