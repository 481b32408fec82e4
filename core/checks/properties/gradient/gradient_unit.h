// SPDX-License-Identifier: GPL-3.0-or-later
// gradient (properties.md §2.14): its check; not drawn as maps of its own.
#pragma once

#include "core/checks/property_unit.h"

namespace attnlab {

PropertyUnit gradientUnit();

} // namespace attnlab
