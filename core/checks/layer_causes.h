// SPDX-License-Identifier: GPL-3.0-or-later
// The causes a report's explanation names, where many layers share one: such a cause is named
// once, with the layers in runs ("the masks of layers 0–11 (causal) are fixed"), where the first
// of them stands, instead of once per layer.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attnlab {

/// Layer indices in runs: "0–11", "0, 2–3, 7".
std::string layerRuns(const std::vector<std::size_t>& layers);

class LayerCauses {
public:
    /// Words a cause of the layers `layers` (in runs) about `what` (e.g. a mask's description);
    /// `several` when there is more than one layer.
    using Phrase = std::string (*)(const std::string& layers, bool several,
                                   const std::string& what);

    /// A cause named as it is.
    void add(std::string cause);
    /// Layer `layer`'s cause `what`, worded by `phrase`: one cause with the earlier layers of the
    /// same phrase and `what`.
    void addLayer(std::size_t layer, const std::string& what, Phrase phrase);
    bool empty() const { return causes_.empty(); }
    /// The causes in order, separated by "; " (empty when there is none).
    std::string joined() const;

private:
    struct Cause {
        std::string text; // when phrase is null
        Phrase phrase = nullptr;
        std::string what;
        std::vector<std::size_t> layers;
    };
    std::vector<Cause> causes_;
};

} // namespace attnlab
