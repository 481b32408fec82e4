// SPDX-License-Identifier: GPL-3.0-or-later
// Causes that name layers, grouped by what they say.
#include "core/checks/layer_causes.h"

#include "core/checks/report_builder.h"

#include <algorithm>

namespace attnlab {

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

void LayerCauses::add(std::string cause) {
    causes_.push_back({std::move(cause), nullptr, {}, {}});
}

void LayerCauses::addLayer(std::size_t layer, const std::string& what, Phrase phrase) {
    const auto same = std::find_if(causes_.begin(), causes_.end(), [&](const Cause& c) {
        return c.phrase == phrase && c.what == what;
    });
    if (same != causes_.end())
        same->layers.push_back(layer);
    else
        causes_.push_back({{}, phrase, what, {layer}});
}

std::string LayerCauses::joined() const {
    std::vector<std::string> texts;
    for (const Cause& c : causes_)
        texts.push_back(c.phrase ? c.phrase(layerRuns(c.layers), c.layers.size() > 1, c.what)
                                 : c.text);
    return joinedCauses(texts);
}

} // namespace attnlab
