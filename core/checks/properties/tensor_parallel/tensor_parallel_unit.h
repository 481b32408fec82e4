// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-parallel (properties.md §2.12): its check, drawn as the model split across parts beside
// the whole model.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit tensorParallelUnit();

} // namespace attnlab
