// SPDX-License-Identifier: GPL-3.0-or-later
// row-sums (properties.md §2.6): its check; not drawn as maps of its own (read it on the A maps).
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit rowSumsUnit();

} // namespace attnlab
