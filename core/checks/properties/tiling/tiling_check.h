// SPDX-License-Identifier: GPL-3.0-or-later
// tiling (attention over key tiles) and, `chunkwise`, chunkwise ssm scans equal the untiled
// evaluation.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeTilingCheck(bool chunkwise);

} // namespace attnlab
