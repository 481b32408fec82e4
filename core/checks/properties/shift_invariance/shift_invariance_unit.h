// SPDX-License-Identifier: GPL-3.0-or-later
// shift-invariance (properties.md §2.10): its check, drawn as the positions shifted by the
// offset it checks; in the window it also checks the shift the Transform tab applies.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit shiftInvarianceUnit();

} // namespace attnlab
