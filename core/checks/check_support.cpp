// SPDX-License-Identifier: GPL-3.0-or-later
// Shared check helpers: integer parameters, cancellation, what breaks equivariance.
#include "core/checks/check_support.h"

#include "core/base/error.h"
#include "core/checks/layer_causes.h"

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

std::vector<long> integerList(const nlohmann::json& value, const std::string& key) {
    if (value.is_array() && value.empty())
        throw InputError(key, "an empty list checks nothing: give at least one integer");
    std::vector<long> out;
    for (const auto& v : value.is_array() ? value : nlohmann::json::array({value})) {
        if (!v.is_number_integer())
            throw InputError(key, "must be an integer or a list of integers, got " + v.dump());
        if (v.is_number_unsigned() &&
            v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<long>::max()))
            throw InputError(key, v.dump() + " is too large");
        out.push_back(v.get<long>());
    }
    return out;
}

long accumulationDepth(const Scenario& s) {
    return long(s.n() + s.d()) * long(s.model.layers.size());
}

void pollCancel(const CheckRequest& request) {
    if (request.cancelled && request.cancelled()) throw CancelledError();
}

namespace {
std::string fixedMask(const std::string& layers, bool several, const std::string& mask) {
    return several
               ? "the masks of layers " + layers + " (" + mask + ") are fixed, not conjugated by σ"
               : "layer " + layers + "'s mask " + mask + " is fixed, not conjugated by σ";
}
} // namespace

std::string equivarianceBreakers(const Scenario& s) {
    LayerCauses causes;
    const PositionalSpec& pos = s.model.positional;
    if (pos.isAbsolute())
        causes.add("absolute positional features (" + pos.describe() +
                   ") are added before layer 0");
    if (pos.isRelative())
        causes.add("relative positions (" + pos.describe() + ") act inside every layer");
    for (std::size_t i = 0; i < s.model.layers.size(); ++i) {
        const LayerSpec& layer = s.model.layers[i];
        const std::string at = "layer " + std::to_string(i);
        if (layer.mixer.kind == MixerSpec::Kind::Ssm) {
            if (!layer.mixer.bidirectional)
                causes.add(at + ": the causal ssm scan weighs tokens by position");
            else if (layer.mixer.a != 1)
                causes.add(at + ": ssm decay a = " + rationalText(layer.mixer.a) +
                           " ≠ 1 weighs tokens by distance");
        } else if (!layer.mask.isAll()) {
            causes.addLayer(i, layer.mask.describe(), fixedMask);
        }
    }
    return causes.joined();
}

std::vector<TokenSpec> batchMates(const Scenario& s, std::uint64_t seed) {
    std::vector<TokenSpec> mates;
    for (const Matrix<Rational>& b : s.batch)
        mates.push_back(TokenSpec::given(b));
    for (int k = 0; s.batch.empty() && k < kDrawnSequences; ++k)
        mates.push_back(
            TokenSpec::random(s.n(), s.d(), seed * 1000003ULL + 7919ULL * std::uint64_t(k + 1)));
    return mates;
}

} // namespace attnlab
