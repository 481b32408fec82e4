// Whether the explorer can compute a scenario with a transformation, checked before an edit is
// accepted so that a refused edit changes nothing.
#pragma once

#include "core/model/scenario.h"
#include "core/spec/transform.h"

namespace attnlab {

/// Throws InputError when the pair cannot be computed: the scenario's own validation, its
/// precision against the model, the model's weights against the token width d, and the
/// transformation against n and d (a perturbed entry outside the tokens; a decode step of
/// more queries than tokens, a mask file not m x n, an ssm layer).
void validateExplorerInput(const Scenario& scenario, const Transform& transform);

} // namespace attnlab
