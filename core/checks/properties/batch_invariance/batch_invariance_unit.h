// SPDX-License-Identifier: GPL-3.0-or-later
// batch-invariance (properties.md §2.11): its check, drawn as the tokens alone beside the same
// tokens inside the check's batch.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit batchInvarianceUnit();

} // namespace attnlab
