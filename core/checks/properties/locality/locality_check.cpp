// SPDX-License-Identifier: GPL-3.0-or-later
// locality: the measured dependency map D[s][t] against the radius the layers' masks imply (their
// reachability) or a claimed one; reports the measured radius and both maps.
#include "core/checks/properties/locality/locality_check.h"

#include "core/checks/properties/shared/dependency_measurement.h"

namespace attnlab {

namespace {

// Each layer's mask (or ssm mixer), for the explanation.
std::string maskSummary(const Scenario& s) {
    std::string text;
    for (std::size_t i = 0; i < s.model.layers.size(); ++i) {
        const LayerSpec& l = s.model.layers[i];
        text += (i ? ", " : "") + std::string("layer ") + std::to_string(i) + ": " +
                (l.mixer.kind == MixerSpec::Kind::Ssm ? l.mixer.describe() : l.mask.describe());
    }
    return text;
}

class LocalityCheck : public TypedCheck<LocalityCheck> {
public:
    std::string name() const override { return "locality"; }
    std::vector<CheckParameter> parameters() const override {
        return {{"radius", CheckParameter::Type::Integer, "the bound the masks imply", ""}};
    }
    std::string note() const override { return "reports the measured radius and the map"; }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const CheckSetup<T> setup(request);
        const BoolMatrix bound = boundMap(s);
        const int boundRadius = dependencyRadius(bound);
        const long radius = integerParam(request, "radius", boundRadius, 0, s.n());
        const Dependencies<T> dep = measureDependencies(setup, request);
        const int measured = dependencyRadius(dep.map);
        ReportBuilder report(name());
        reportViolations(
            report,
            findViolations(dep, setup.depth,
                           [&](auto si, auto ti) { return std::abs(si - ti) > radius; }),
            dep, setup.depth);
        report
            .checked({{"perturbed_tokens", s.n()},
                      {"perturbations_per_token", 2},
                      {"claimed_radius", radius}})
            .details({{"measured_radius", measured},
                      {"bound_radius", boundRadius},
                      {"claimed_radius", radius},
                      {"bound_attained", (dep.map == bound).all()},
                      {"within_bound", (dep.map <= bound).all()},
                      {"dependency_map", boolRows(dep.map)},
                      {"bound_map", boolRows(bound)}});
        const std::string measuredText = "measured dependency radius " + std::to_string(measured) +
                                         "; the masks bound it by " + std::to_string(boundRadius) +
                                         " (radii add through layers: " + maskSummary(s) + ")";
        report.explain(measuredText, measuredText +
                                         "; outputs read tokens further than the claimed radius " +
                                         std::to_string(radius));
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeLocalityCheck() {
    return std::make_unique<LocalityCheck>();
}

} // namespace attnlab
