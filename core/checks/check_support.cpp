// Shared check helpers: integer parameters, cancellation, what breaks equivariance.
#include "core/checks/check_support.h"

#include "core/base/error.h"

#include <algorithm>

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

namespace {

// Layer indices in runs: "0–11", "0, 2–3, 7".
std::string layerRuns(const std::vector<std::size_t>& layers) {
    std::string text;
    for (std::size_t i = 0; i < layers.size();) {
        std::size_t j = i;
        while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1)
            ++j;
        text += (text.empty() ? "" : ", ") + std::to_string(layers[i]);
        if (j > i) text += "–" + std::to_string(layers[j]);
        i = j + 1;
    }
    return text;
}

} // namespace

std::string equivarianceBreakers(const Scenario& s) {
    std::vector<std::string> causes;
    const PositionalSpec& pos = s.model.positional;
    if (pos.isAbsolute())
        causes.push_back("absolute positional features (" + pos.describe() +
                         ") are added before layer 0");
    if (pos.isRelative())
        causes.push_back("relative positions (" + pos.describe() + ") act inside every layer");
    // Layers with the same fixed mask are named once, where the first of them stands.
    struct MaskGroup {
        std::string mask;
        std::vector<std::size_t> layers;
        std::size_t cause;
    };
    std::vector<MaskGroup> masks;
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
            const std::string mask = layer.mask.describe();
            auto group = std::find_if(masks.begin(), masks.end(),
                                      [&](const MaskGroup& g) { return g.mask == mask; });
            if (group == masks.end()) {
                masks.push_back({mask, {}, causes.size()});
                causes.emplace_back();
                group = masks.end() - 1;
            }
            group->layers.push_back(i);
        }
    }
    for (const MaskGroup& g : masks)
        causes[g.cause] = g.layers.size() == 1
                              ? "layer " + std::to_string(g.layers.front()) + "'s mask " + g.mask +
                                    " is fixed, not conjugated by σ"
                              : "the masks of layers " + layerRuns(g.layers) + " (" + g.mask +
                                    ") are fixed, not conjugated by σ";
    return joinedCauses(causes);
}

} // namespace attnlab
