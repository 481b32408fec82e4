// SPDX-License-Identifier: GPL-3.0-or-later
// locality (properties.md §2.3): its check, drawn as one token perturbed, and the map it measures
// on the dependency page.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit localityUnit();

} // namespace attnlab
