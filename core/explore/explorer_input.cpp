// SPDX-License-Identifier: GPL-3.0-or-later
// The checks an explorer edit passes before it is accepted, and the decode step's m fitted to n.
#include "core/explore/explorer_input.h"

#include "core/base/error.h"
#include "core/explore/decode_transform.h"
#include "core/model/model.h"

#include <algorithm>
#include <string>

namespace attnlab {

void validateExplorerInput(const Scenario& scenario, const Transform& transform) {
    scenario.validate();
    checkPrecision(scenario.model, scenario.precision);
    Model<double>(scenario.model, scenario.d());
    if (transform.kind == Transform::Kind::Perturbation &&
        (transform.token >= scenario.n() || transform.feature >= scenario.d()))
        throw InputError("transform", "the perturbed entry [" + std::to_string(transform.token) +
                                          "][" + std::to_string(transform.feature) +
                                          "] is outside the tokens");
    if (transform.kind == Transform::Kind::Decode)
        checkDecodeStep(decodeStepOf(transform), scenario.model, scenario.n());
}

Transform fittedToTokens(Transform transform, const Scenario& scenario) {
    transform.queries = std::clamp(transform.queries, 1, std::max(1, scenario.n()));
    return transform;
}

} // namespace attnlab
