// SPDX-License-Identifier: GPL-3.0-or-later
// The decode step a Decode transformation asks for, with its mask file read (an m x n .npy).
#pragma once

#include "core/model/decode.h"
#include "core/model/scenario.h"
#include "core/spec/transform.h"

namespace attnlab {

/// The step of `t` (a Decode transformation): m, the alignment and, when `t` names a mask
/// file, its cells. Throws InputError naming the file when it cannot be read as a mask.
DecodeStep decodeStepOf(const Transform& t);

/// Per layer of the scenario, the m x n mask the step's queries use (the aligned rows of the
/// layer's mask, or the step's own); empty matrices when n is above `limit` (nothing drawn).
std::vector<BoolMatrix> decodeMasks(const Scenario& scenario, const DecodeStep& step, int limit);

} // namespace attnlab
