// SPDX-License-Identifier: GPL-3.0-or-later
// A property's witness, typed: where it lies on the explorer's maps (which map, layer, head, row
// and column), filled in by the check that found it, and the values it compares. Its JSON form is
// cli.md's `witness` object; each check keeps the keys it names its position with.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace attnlab {

/// One cell of one of the explorer's maps.
struct WitnessCell {
    enum class Map { Output, Weights, Scores, Dependency };
    Map map = Map::Output;
    int layer = -1, head = -1; // -1: the model's output, or any layer/head
    int row = 0, column = 0;
};

/// The JSON keys a witness writes its cell with (cli.md; each check keeps its own).
enum class CellKeys {
    RowColumn,           // "row", "column", and "layer", "head" when the cell names them
    WhereRowColumn,      // "where": "layer L head H", "row", "column"
    OutputRowInputToken, // "output_row", "input_token" (a pair of the dependency map)
};

class Witness {
public:
    /// A witness that names no cell (e.g. a pooled readout, a loss): only values.
    Witness() = default;
    /// A witness at `cell`, written in the JSON with `keys`.
    Witness(WitnessCell cell, CellKeys keys) : cell_(cell), keys_(keys) {}

    /// Adds a value (or a key of the check's own, e.g. the permutation) under `key`.
    Witness& with(const std::string& key, nlohmann::json value);

    /// Where it lies on the explorer's maps; nullopt when it names no single cell.
    const std::optional<WitnessCell>& cell() const { return cell_; }
    /// The value under `key` (null when absent; the cell's keys are not values).
    const nlohmann::json& value(const std::string& key) const;
    bool has(const std::string& key) const { return values_.contains(key); }
    /// The `witness` object of `check --json`.
    nlohmann::json json() const;

private:
    std::optional<WitnessCell> cell_;
    CellKeys keys_ = CellKeys::RowColumn;
    nlohmann::json values_ = nlohmann::json::object();
};

} // namespace attnlab
