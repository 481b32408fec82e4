// SPDX-License-Identifier: GPL-3.0-or-later
// locality: the measured dependency radius against the bound the masks imply or a claimed one.
#pragma once

#include "core/checks/black_box.h"
#include "core/checks/property_check.h"

#include <memory>

namespace attnlab {

std::unique_ptr<PropertyCheck> makeLocalityCheck();
/// The same property measured on a black box (black_box.h).
std::shared_ptr<const BlackBoxProperty> makeLocalityBlackBox();

} // namespace attnlab
