// SPDX-License-Identifier: GPL-3.0-or-later
// batch-invariance: an example inside a batch gives what it gives alone.
#pragma once

#include "core/checks/black_box.h"
#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeBatchInvarianceCheck();
/// The same property measured on a black box (black_box.h).
std::shared_ptr<const BlackBoxProperty> makeBatchInvarianceBlackBox();

} // namespace attnlab
