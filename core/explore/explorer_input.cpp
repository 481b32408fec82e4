// The checks an explorer edit passes before it is accepted.
#include "core/explore/explorer_input.h"

#include "core/base/error.h"
#include "core/explore/decode_transform.h"
#include "core/model/model.h"

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

} // namespace attnlab
