// Shared check helpers: integer parameters, cancellation, what breaks equivariance.
#include "core/checks/check_support.h"

#include "core/base/error.h"

namespace attnlab {

long integerParam(const CheckRequest& request, const std::string& key, long fallback, long lo,
                  long hi) {
    if (!request.params.contains(key)) return fallback;
    const auto& v = request.params.at(key);
    if (!v.is_number_integer() || v.get<long>() < lo || v.get<long>() > hi)
        throw InputError(key + ": must be an integer in " + std::to_string(lo) + ".." +
                         std::to_string(hi));
    return v.get<long>();
}

void pollCancel(const CheckRequest& request) {
    if (request.cancelled && request.cancelled()) throw CancelledError();
}

std::string equivarianceBreakers(const Scenario& s) {
    std::vector<std::string> causes;
    const PositionalSpec& pos = s.model.positional;
    if (pos.isAbsolute())
        causes.push_back("absolute positional features (" + pos.describe() +
                         ") are added before layer 0");
    if (pos.isRelative())
        causes.push_back("relative positions (" + pos.describe() + ") act inside every layer");
    for (std::size_t i = 0; i < s.model.layers.size(); ++i) {
        const LayerSpec& layer = s.model.layers[i];
        const std::string at = "layer " + std::to_string(i);
        if (layer.mixer.kind == MixerSpec::Kind::Ssm) {
            if (!layer.mixer.bidirectional)
                causes.push_back(at + ": the causal ssm scan weighs tokens by position");
            else if (layer.mixer.a != 1)
                causes.push_back(at + ": ssm decay a = " + rationalText(layer.mixer.a) +
                                 " ≠ 1 weighs tokens by distance");
        } else if (!layer.mask.isAll()) {
            causes.push_back(at + "'s mask " + layer.mask.describe() +
                             " is fixed, not conjugated by σ");
        }
    }
    return joinedCauses(causes);
}

} // namespace attnlab
