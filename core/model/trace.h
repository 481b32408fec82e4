// SPDX-License-Identifier: GPL-3.0-or-later
// What a forward pass leaves behind for views, the CLI and checks: per layer and head the
// scores and weights, per layer the output and the backend that computed it, the warnings (e.g.
// all-masked rows) and the notices (a backend fell back to the CPU).
#pragma once

#include "core/base/scalar.h"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {

template <class T>
struct HeadTrace {
    Matrix<T> scores;
    Matrix<T> weights;
};

template <class T>
struct LayerTrace {
    std::vector<HeadTrace<T>> heads; // empty when maps were not requested
    Matrix<T> output;
    std::string backend = "cpu"; // "cpu", "opencl", "cuda" ("opencl+cpu" when heads differed)
};

template <class T>
struct Trace {
    Matrix<T> input; // tokens after absolute positional features: the network's real input
    std::vector<LayerTrace<T>> layers;
    Matrix<T> output;
    std::vector<std::string> warnings;
    std::vector<std::string> notices; // fallbacks to the CPU, with the reason
};

/// Records that head `head` of layer `index` ran on `backend`, with the fallback `notice` (if
/// any): the layer's backend becomes e.g. "opencl+cpu" when heads differ; notices are kept once.
template <class T>
void noteBackend(Trace<T>& trace, LayerTrace<T>& layer, std::size_t index, int head,
                 const std::string& backend, const std::string& notice) {
    if (head == 0)
        layer.backend = backend;
    else if (("+" + layer.backend + "+").find("+" + backend + "+") == std::string::npos)
        layer.backend += "+" + backend;
    const std::string line = "layer " + std::to_string(index) + ": " + notice;
    if (!notice.empty() &&
        std::find(trace.notices.begin(), trace.notices.end(), line) == trace.notices.end())
        trace.notices.push_back(line);
}

} // namespace attnlab
