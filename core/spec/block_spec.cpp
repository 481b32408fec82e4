// SPDX-License-Identifier: GPL-3.0-or-later
// Descriptions of norms and MLPs.
#include "core/spec/block_spec.h"

#include "core/base/error.h"

namespace attnlab {

std::string NormSpec::describe() const {
    return std::string(nameOf<Kind>(kNormKindNames, kind));
}

std::string MlpSpec::describe() const {
    const std::string name(nameOf<Activation>(kActivationNames, activation));
    return gate ? name + " (gated)" : name;
}

void NormSpec::checkPrecision(Precision precision) const {
    if (precision == Precision::Exact)
        throw InputError("precision exact: " + describe() +
                         " needs a square root; use a float precision");
}

void MlpSpec::checkPrecision(Precision precision) const {
    if (precision == Precision::Exact && activation != Activation::Relu)
        throw InputError("precision exact: activation " + describe() +
                         " needs erf, tanh or exp; use relu or a float precision");
}

} // namespace attnlab
