// SPDX-License-Identifier: GPL-3.0-or-later
// locality of a black box (properties.md §2.3, §3): the measured dependency map against a
// claimed radius (the parameter, else the intended mask's radius); reports the measured radius.
#include "core/checks/properties/locality/locality_check.h"

#include "core/base/error.h"
#include "core/checks/check_support.h"
#include "core/checks/properties/shared/black_box_dependencies.h"

namespace attnlab {

namespace {

class LocalityAnalysis : public BlackBoxAnalysis {
public:
    LocalityAnalysis(std::shared_ptr<BlackBoxDependencies> dep, long radius)
        : dep_(std::move(dep)), radius_(radius) {}
    PropertyReport report(const BlackBoxPlan& plan, const BlackBoxRequest& request) override {
        const Dependencies<double>& measured = dep_->measure(request.tolerance);
        const Eigen::Index n = plan.tokens().rows();
        const int radius = blackBoxRadius(measured.map, n, request.queries);
        ReportBuilder report("locality");
        dep_->settle(report,
                     dep_->violations(request.tolerance, request.queries,
                                      [&](auto s, auto t) { return std::abs(s - t) > radius_; }),
                     request.tolerance, request.queries);
        report.checked(dep_->checked(request.tolerance))
            .checked("claimed_radius", radius_)
            .details({{"measured_radius", radius},
                      {"claimed_radius", radius_},
                      {"dependency_map", boolRows(measured.map)}});
        const std::string measuredText = "measured dependency radius " + std::to_string(radius);
        report.explain(measuredText + ", within the claimed radius " + std::to_string(radius_),
                       measuredText + ": outputs read tokens further than the claimed radius " +
                           std::to_string(radius_));
        return std::move(report).build();
    }

private:
    std::shared_ptr<BlackBoxDependencies> dep_;
    long radius_;
};

class LocalityBlackBox : public BlackBoxProperty {
public:
    std::string name() const override { return "locality"; }
    std::vector<CheckParameter> parameters() const override {
        return {{"radius", CheckParameter::Type::Integer, "the intended mask's radius", ""}};
    }
    std::optional<std::string> notApplicable(const BlackBoxRequest& request) const override {
        if (request.params.contains("radius") || request.intendedMask) return std::nullopt;
        return "no radius is claimed: give --property locality:radius=R or --mask";
    }
    std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                           const BlackBoxRequest& request) const override {
        const auto n = long(plan.tokens().rows());
        long radius = 0;
        if (request.params.contains("radius")) {
            const nlohmann::json& r = request.params["radius"];
            if (!r.is_number_integer() || r.get<long>() < 0 || r.get<long>() > n)
                throw InputError("locality: radius must be an integer from 0 to " +
                                 std::to_string(n));
            radius = r.get<long>();
        } else {
            radius = std::max(0, blackBoxRadius(queryRows(*request.intendedMask, request.queries),
                                                n, request.queries));
        }
        return std::make_unique<LocalityAnalysis>(
            BlackBoxDependencies::in(plan, request.tolerance.fixed), radius);
    }
};

} // namespace

std::shared_ptr<const BlackBoxProperty> makeLocalityBlackBox() {
    return std::make_shared<LocalityBlackBox>();
}

} // namespace attnlab
