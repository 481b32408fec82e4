// SPDX-License-Identifier: GPL-3.0-or-later
// data-parallel: the batch split between workers, losses added, equals the whole batch.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeDataParallelCheck();

} // namespace attnlab
