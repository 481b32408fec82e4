// SPDX-License-Identifier: GPL-3.0-or-later
// The non-template parts of measuring dependencies: key masks, their bound, maps as JSON.
#include "core/checks/properties/shared/dependency_measurement.h"

namespace attnlab {

BoolMatrix keyMask(const LayerSpec& layer, int n) {
    if (layer.mixer.kind != MixerSpec::Kind::Ssm) return buildMask(layer.mask, n);
    return buildMask(layer.mixer.bidirectional ? MaskSpec::all() : MaskSpec::causal(), n);
}

BoolMatrix boundMap(const Scenario& s) {
    std::vector<BoolMatrix> masks;
    for (const LayerSpec& layer : s.model.layers)
        masks.push_back(keyMask(layer, s.n()));
    return reachability(masks);
}

nlohmann::json boolRows(const BoolMatrix& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.push_back(m(i, j) ? 1 : 0);
        rows.push_back(row);
    }
    return rows;
}

} // namespace attnlab
