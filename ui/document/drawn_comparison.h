// SPDX-License-Identifier: GPL-3.0-or-later
// What a set of views draws: the explorer state they were computed from and the comparison drawn
// on it (the state's own transformation, as a Kind::Transform comparison, when no property's is
// chosen). A witness carries the one its property is drawn with, so that the views outline it on
// the maps that show it only, whichever of the two arrives first.
#pragma once

#include "core/explore/property_comparison.h"
#include "ui/document/scenario_document.h"

#include <memory>

namespace attnlab::ui {

struct DrawnComparison {
    std::shared_ptr<const ExplorerState> state; // held, so that its address is not reused
    PropertyComparison comparison;

    /// The state's transformation.
    static DrawnComparison transformationOf(std::shared_ptr<const ExplorerState> state) {
        DrawnComparison drawn{std::move(state), {}};
        if (drawn.state) drawn.comparison.transform = drawn.state->transform;
        return drawn;
    }
    /// Whether `other` draws the same maps: of the same state, compared the same way.
    bool sameMaps(const DrawnComparison& other) const {
        return state && state == other.state && comparison.drawsSameAs(other.comparison);
    }
};

} // namespace attnlab::ui
