// SPDX-License-Identifier: GPL-3.0-or-later
// The worst of a comparison over every head of every layer of a trace, and where it is: what the
// checks read off the per-head maps of a forward (row-sums, logit-symmetry, shift-invariance)
// report.
#pragma once

#include "core/checks/comparison.h"
#include "core/model/model.h"

#include <string>

namespace attnlab {

template <class T>
struct WorstHead {
    Deviation<T> deviation;
    std::size_t layer = 0, head = 0;
    bool found() const { return deviation.row >= 0; }
};

/// The worst of compare(layer, head) over every head of every layer of `trace`; a comparison
/// whose row is -1 (a skipped head) counts for nothing.
template <class T, class Compare>
WorstHead<T> worstOverHeads(const Trace<T>& trace, Compare&& compare) {
    WorstHead<T> worst;
    for (std::size_t l = 0; l < trace.layers.size(); ++l)
        for (std::size_t h = 0; h < trace.layers[l].heads.size(); ++h) {
            const Deviation<T> d = compare(l, h);
            if (d.row >= 0 && (!worst.found() || d.largest > worst.deviation.largest)) {
                worst.layer = l;
                worst.head = h;
            }
            worst.deviation.merge(d);
        }
    return worst;
}

/// "layer L head H", as explanations and witnesses name a head.
inline std::string headName(std::size_t layer, std::size_t head) {
    return "layer " + std::to_string(layer) + " head " + std::to_string(head);
}

} // namespace attnlab
