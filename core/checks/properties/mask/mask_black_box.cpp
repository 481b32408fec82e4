// SPDX-License-Identifier: GPL-3.0-or-later
// mask conformance of a black box (mask_black_box.h). With `layers` L > 1 the intended map is the
// mask's L-step reachability (properties.md §2.3); a query always reads its own token.
#include "core/checks/properties/mask/mask_black_box.h"

#include "core/base/error.h"
#include "core/checks/properties/shared/black_box_dependencies.h"

namespace attnlab {

namespace {

// Pairs listed in a report's details, at most; the counts are always whole.
constexpr std::size_t kListedPairs = 64;

struct Mismatches {
    std::vector<std::pair<Eigen::Index, Eigen::Index>> leaks, deadKeys; // row-major order
};

Mismatches mismatches(const BoolMatrix& measured, const BoolMatrix& intended) {
    Mismatches m;
    for (Eigen::Index s = 0; s < measured.rows(); ++s)
        for (Eigen::Index t = 0; t < measured.cols(); ++t) {
            if (measured(s, t) && !intended(s, t)) m.leaks.emplace_back(s, t);
            if (!measured(s, t) && intended(s, t)) m.deadKeys.emplace_back(s, t);
        }
    return m;
}

nlohmann::json listed(const std::vector<std::pair<Eigen::Index, Eigen::Index>>& pairs) {
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min(pairs.size(), kListedPairs); ++i)
        list.push_back({pairs[i].first, pairs[i].second});
    return list;
}

class MaskAnalysis : public BlackBoxAnalysis {
public:
    MaskAnalysis(std::shared_ptr<BlackBoxDependencies> dep, BoolMatrix intended, long layers)
        : dep_(std::move(dep)), intended_(std::move(intended)), layers_(layers) {}

    PropertyReport report(const BlackBoxPlan& plan, const BlackBoxRequest& request) override {
        const Dependencies<double>& measured = dep_->measure(request.tolerance);
        const Mismatches m = mismatches(measured.map, intended_);
        ReportBuilder report("mask");
        const Violations leaks =
            dep_->violations(request.tolerance, request.queries, [&](auto s, auto t) {
                return !intended_(s - (plan.tokens().rows() - measured.map.rows()), t);
            });
        RowChange<double> worst;
        if (leaks.worst) worst = measured.at(leaks.worst->first, leaks.worst->second);
        const double limit = request.tolerance.dependence(worst.magnitude);
        report.settleOn(false, ReportNumber::of(worst.largest), ReportNumber::of(limit),
                        request.tolerance.dependenceRule(),
                        !m.leaks.empty() || !m.deadKeys.empty());
        if (!m.leaks.empty()) {
            const auto [s, t] = m.leaks.front();
            report.witness(dep_->witness(s, t, request.queries).with("kind", "leak"));
        } else if (!m.deadKeys.empty()) {
            const auto [s, t] = m.deadKeys.front();
            report.witness(dep_->witness(s, t, request.queries)
                               .with("kind", "dead key")
                               .with("largest_change", measured.at(s, t).largest));
        }
        report.checked(dep_->checked(request.tolerance))
            .checked("intended_mask", request.intendedMaskText)
            .checked("layers", layers_)
            .details({{"leaks", m.leaks.size()},
                      {"dead_keys", m.deadKeys.size()},
                      {"leak_pairs", listed(m.leaks)},
                      {"dead_key_pairs", listed(m.deadKeys)},
                      {"dependency_map", boolRows(measured.map)},
                      {"intended_map", boolRows(intended_)}});
        report.explain("the measured dependencies are exactly the intended mask's (" +
                           request.intendedMaskText + ")",
                       std::to_string(m.leaks.size()) + " leak" + (m.leaks.size() == 1 ? "" : "s") +
                           " (outputs that read keys the mask forbids) and " +
                           std::to_string(m.deadKeys.size()) + " dead key" +
                           (m.deadKeys.size() == 1 ? "" : "s") +
                           " (allowed keys that move nothing) against " + request.intendedMaskText);
        return std::move(report).build();
    }

private:
    std::shared_ptr<BlackBoxDependencies> dep_;
    BoolMatrix intended_; // the queries' rows
    long layers_;
};

class MaskBlackBox : public BlackBoxProperty {
public:
    std::string name() const override { return "mask"; }
    std::string section() const override { return "2.17"; }
    std::vector<CheckParameter> parameters() const override {
        return {{"layers", CheckParameter::Type::Integer, "1",
                 "attention layers the program stacks: compare with the mask's reachability"}};
    }
    std::optional<std::string> notApplicable(const BlackBoxRequest& request) const override {
        if (request.intendedMask) return std::nullopt;
        return "no intended mask: give --mask SPEC";
    }
    std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                           const BlackBoxRequest& request) const override {
        long layers = 1;
        if (request.params.contains("layers")) {
            const nlohmann::json& l = request.params["layers"];
            if (!l.is_number_integer() || l.get<long>() < 1 || l.get<long>() > 1000)
                throw InputError("mask: layers must be an integer from 1 to 1000");
            layers = l.get<long>();
        }
        const std::vector<BoolMatrix> masks(std::size_t(layers), *request.intendedMask);
        return std::make_unique<MaskAnalysis>(
            BlackBoxDependencies::in(plan, request.tolerance.fixed),
            queryRows(reachability(masks), request.queries), layers);
    }
};

} // namespace

std::shared_ptr<const BlackBoxProperty> makeMaskBlackBox() {
    return std::make_shared<MaskBlackBox>();
}

} // namespace attnlab
