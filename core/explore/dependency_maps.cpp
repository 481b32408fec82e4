// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a report's 0/1 dependency rows into matrices.
#include "core/explore/dependency_maps.h"

namespace attnlab {

namespace {

ViewMatrix boolRows(const nlohmann::json& rows) {
    ViewMatrix v;
    if (!rows.is_array() || rows.empty() || !rows[0].is_array()) return v;
    const std::size_t cols = rows[0].size();
    v.values.resize(Eigen::Index(rows.size()), Eigen::Index(cols));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].is_array() || rows[i].size() != cols) return {};
        for (std::size_t j = 0; j < cols; ++j) {
            const nlohmann::json& e = rows[i][j];
            if (!e.is_number() && !e.is_boolean()) return {};
            v.values(Eigen::Index(i), Eigen::Index(j)) =
                e.is_boolean() ? double(e.get<bool>()) : e.get<double>();
        }
    }
    return v;
}

} // namespace

std::optional<DependencyMaps> dependencyMaps(const PropertyReport& report) {
    if (!report.details.contains("dependency_map")) return std::nullopt;
    DependencyMaps maps{boolRows(report.details["dependency_map"]),
                        boolRows(report.details.value(
                            "bound_map", report.details.value("intended_map", nlohmann::json()))),
                        {}};
    const Eigen::MatrixXd &measured = maps.measured.values, &bound = maps.bound.values;
    if (bound.size() > 0 && bound.rows() == measured.rows() && bound.cols() == measured.cols())
        maps.excess.values = measured - bound;
    return maps;
}

} // namespace attnlab
