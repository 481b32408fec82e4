// SPDX-License-Identifier: GPL-3.0-or-later
// kv-cache (properties.md §2.15): its check, drawn as the decode step it compares with the full
// pass.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit kvCacheUnit();

} // namespace attnlab
