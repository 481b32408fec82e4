// SPDX-License-Identifier: GPL-3.0-or-later
// causality (properties.md §2.4): its check, drawn as a later token perturbed, and the map it
// measures when it fails, on the dependency page until locality's arrives.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit causalityUnit();

} // namespace attnlab
