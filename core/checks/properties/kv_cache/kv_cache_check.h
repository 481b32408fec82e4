// SPDX-License-Identifier: GPL-3.0-or-later
// kv-cache: decoding the last m tokens against a KV cache reproduces the last m rows of the full
// pass (outputs and weights), for each m checked and one alignment of the decode step's mask.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeKvCacheCheck();

} // namespace attnlab
