// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-parallel: the model split across parts equals the unsplit model.
#pragma once

#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeTensorParallelCheck();

} // namespace attnlab
