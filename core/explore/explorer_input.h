// SPDX-License-Identifier: GPL-3.0-or-later
// Whether the explorer can compute a scenario with a transformation, checked before an edit is
// accepted so that a refused edit changes nothing, and the transformation following the tokens.
#pragma once

#include "core/model/scenario.h"
#include "core/spec/transform.h"

namespace attnlab {

/// Throws InputError when the pair cannot be computed: the scenario's own validation, its
/// precision against the model, the model's weights against the token width d, and the
/// transformation against n and d (a perturbed entry outside the tokens; a decode step of
/// more queries than tokens, a mask file not m x n, an ssm layer).
void validateExplorerInput(const Scenario& scenario, const Transform& transform);

/// `transform` fitted to the scenario's n tokens: a decode step's m follows n down (clamped to
/// 1..n) when an edit leaves fewer tokens than m, instead of the edit being refused. A decode
/// mask file is not refitted (validateExplorerInput still refuses one that is not m x n).
Transform fittedToTokens(Transform transform, const Scenario& scenario);

} // namespace attnlab
