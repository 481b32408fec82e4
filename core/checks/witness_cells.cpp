// Reading positions out of witnesses: every check names rows and columns with the same keys.
#include "core/checks/witness_cells.h"

#include <cstdio>

namespace attnlab {

namespace {

WitnessCell::Map mapOf(const std::string& property) {
    if (property == "locality" || property == "causality") return WitnessCell::Map::Dependency;
    if (property == "row-sums") return WitnessCell::Map::Weights;
    if (property == "logit-symmetry" || property == "shift-invariance")
        return WitnessCell::Map::Scores;
    return WitnessCell::Map::Output;
}

bool integer(const nlohmann::json& w, const char* key, int& out) {
    if (!w.contains(key) || !w[key].is_number_integer()) return false;
    out = w[key].get<int>();
    return true;
}

} // namespace

std::vector<WitnessCell> witnessCells(const PropertyReport& report, bool shrunk) {
    const nlohmann::json& w =
        shrunk && !report.shrunkWitness.is_null() ? report.shrunkWitness : report.witness;
    if (!w.is_object()) return {};
    WitnessCell cell;
    cell.map = mapOf(report.name);
    const bool located =
        (integer(w, "row", cell.row) && integer(w, "column", cell.column)) ||
        (integer(w, "output_row", cell.row) && integer(w, "input_token", cell.column));
    if (!located) return {};
    integer(w, "layer", cell.layer);
    integer(w, "head", cell.head);
    if (w.contains("where") && w["where"].is_string()) {
        int layer = 0, head = 0;
        if (std::sscanf(w["where"].get<std::string>().c_str(), "layer %d head %d", &layer, &head) ==
            2) {
            cell.layer = layer;
            cell.head = head;
        }
    }
    return {cell};
}

} // namespace attnlab
