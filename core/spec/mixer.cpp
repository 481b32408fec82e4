// SPDX-License-Identifier: GPL-3.0-or-later
// Mixers as stated: their names, descriptions and the precisions they need.
#include "core/spec/mixer.h"

#include "core/base/error.h"

namespace attnlab {

std::string mixerKindName(MixerSpec::Kind kind) {
    switch (kind) {
    case MixerSpec::Kind::Softmax:
        return "softmax";
    case MixerSpec::Kind::SoftmaxLike:
        return "softmax_like";
    case MixerSpec::Kind::Raw:
        return "raw";
    case MixerSpec::Kind::Ssm:
        return "ssm";
    }
    return "?";
}

std::string MixerSpec::describe() const {
    if (kind != Kind::Ssm) return mixerKindName(kind);
    return "ssm(a=" + rationalText(a) + (bidirectional ? ", bidirectional)" : ", causal)");
}

void MixerSpec::checkPrecision(Precision precision) const {
    if (precision == Precision::Exact && kind == Kind::Softmax)
        throw InputError("precision exact: mixer softmax needs exp, use softmax_like, raw or ssm");
}

} // namespace attnlab
