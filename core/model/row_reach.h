// SPDX-License-Identifier: GPL-3.0-or-later
// How far back through the layers the first rows of a model's output reach: for each layer, the
// prefix of its input rows that the first rows of its output can read (their own rows, and the
// keys their mask allows). Model::forwardFrom takes a layer's output from a record when that
// prefix of its input is unchanged, and computes only what the needed rows read.
#pragma once

#include "core/spec/mask.h"

#include <vector>

namespace attnlab {

/// For n tokens under `mask`: entry r is one past the last input row that any of output rows
/// 0..r reads (its own row, or a key the mask allows), so rows 0..r of the output read only
/// input rows below it. Validates the mask (InputError as buildMask).
std::vector<int> prefixReach(const MaskSpec& mask, int n);

/// For layers with these reaches (first layer first), whose last layer's first `rows` output
/// rows are wanted: entry l is how many of layer l's first input rows those can depend on, and
/// the last entry is `rows` itself (layers.size() + 1 entries).
std::vector<int> neededInputRows(const std::vector<std::vector<int>>& reaches, int rows);

} // namespace attnlab
