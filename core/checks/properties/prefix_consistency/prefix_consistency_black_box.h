// SPDX-License-Identifier: GPL-3.0-or-later
// prefix-consistency of a black box (properties.md §2.16): the outputs of the first m tokens
// given alone equal the first m rows of the whole pass. Separate from causality on purpose: a
// program that reads the length itself passes causality and fails this (prefill against decode).
#pragma once

#include "core/checks/black_box.h"

#include <memory>

namespace attnlab {

std::shared_ptr<const BlackBoxProperty> makePrefixConsistencyBlackBox();

} // namespace attnlab
