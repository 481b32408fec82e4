// SPDX-License-Identifier: GPL-3.0-or-later
// tiling and chunkwise (properties.md §2.8, §2.9): their check, drawn as the output evaluated in
// key tiles or ssm chunks beside the reference evaluation.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit tilingUnit();
PropertyUnit chunkwiseUnit();

} // namespace attnlab
