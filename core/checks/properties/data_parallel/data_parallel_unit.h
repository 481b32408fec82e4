// SPDX-License-Identifier: GPL-3.0-or-later
// data-parallel (properties.md §2.13): its check, drawn as the tokens in their worker's half of
// the batch beside the whole batch.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit dataParallelUnit();

} // namespace attnlab
