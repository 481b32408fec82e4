// SPDX-License-Identifier: GPL-3.0-or-later
// all-true-mask (properties.md §2.7): its check, drawn as the unmasked code path beside the
// masked one.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit allTrueMaskUnit();

} // namespace attnlab
