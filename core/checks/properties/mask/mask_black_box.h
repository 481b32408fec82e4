// SPDX-License-Identifier: GPL-3.0-or-later
// mask conformance of a black box (properties.md §2.17): the measured dependency map against the
// mask the user meant; every leak (an output depending on a key the mask forbids) and every dead
// key (an allowed key that moves nothing) counted and listed.
#pragma once

#include "core/checks/black_box.h"

#include <memory>

namespace attnlab {

std::shared_ptr<const BlackBoxProperty> makeMaskBlackBox();

} // namespace attnlab
