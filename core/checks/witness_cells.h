// Where a report's witness lies on the explorer's maps: which map (output, weights, scores or
// dependency), which layer and head, and which cell, so a view can outline it.
#pragma once

#include "core/checks/property_report.h"

#include <vector>

namespace attnlab {

struct WitnessCell {
    enum class Map { Output, Weights, Scores, Dependency };
    Map map = Map::Output;
    int layer = -1, head = -1; // -1: the model's output, or any layer/head
    int row = 0, column = 0;
};

/// The cells the witness (or the shrunk witness when `shrunk`) points at; empty when the report
/// has no witness with a position (e.g. it holds, or a pooled equivariance witness).
std::vector<WitnessCell> witnessCells(const PropertyReport& report, bool shrunk);

} // namespace attnlab
