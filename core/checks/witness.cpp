// SPDX-License-Identifier: GPL-3.0-or-later
// A typed witness and its JSON form.
#include "core/checks/witness.h"

namespace attnlab {

Witness& Witness::with(const std::string& key, nlohmann::json value) {
    values_[key] = std::move(value);
    return *this;
}

const nlohmann::json& Witness::value(const std::string& key) const {
    static const nlohmann::json none;
    const auto it = values_.find(key);
    return it == values_.end() ? none : *it;
}

nlohmann::json Witness::json() const {
    nlohmann::json j = values_;
    if (!cell_) return j;
    const WitnessCell& c = *cell_;
    switch (keys_) {
    case CellKeys::RowColumn:
        if (c.layer >= 0) j["layer"] = c.layer;
        if (c.head >= 0) j["head"] = c.head;
        j["row"] = c.row;
        j["column"] = c.column;
        break;
    case CellKeys::WhereRowColumn:
        j["where"] = "layer " + std::to_string(c.layer) + " head " + std::to_string(c.head);
        j["row"] = c.row;
        j["column"] = c.column;
        break;
    case CellKeys::OutputRowInputToken:
        j["output_row"] = c.row;
        j["input_token"] = c.column;
        break;
    }
    return j;
}

} // namespace attnlab
