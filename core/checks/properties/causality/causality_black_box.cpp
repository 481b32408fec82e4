// SPDX-License-Identifier: GPL-3.0-or-later
// causality of a black box (properties.md §2.4, §3): no output row moves when a later token is
// perturbed, on the measured dependency map; the witness names the pair.
#include "core/checks/properties/causality/causality_check.h"

#include "core/checks/properties/shared/black_box_dependencies.h"

namespace attnlab {

namespace {

class CausalityAnalysis : public BlackBoxAnalysis {
public:
    explicit CausalityAnalysis(std::shared_ptr<BlackBoxDependencies> dep) : dep_(std::move(dep)) {}
    PropertyReport report(const BlackBoxPlan&, const BlackBoxRequest& request) override {
        const Dependencies<double>& measured = dep_->measure(request.tolerance);
        ReportBuilder report("causality");
        const Violations v = dep_->violations(request.tolerance, request.queries,
                                              [](auto s, auto t) { return t > s; });
        dep_->settle(report, v, request.tolerance, request.queries);
        report.checked(dep_->checked(request.tolerance))
            .details({{"dependency_map", boolRows(measured.map)}});
        report.explain("no output depends on a later token: output s moves only with tokens "
                       "t <= s",
                       "an output depends on a later token");
        return std::move(report).build();
    }

private:
    std::shared_ptr<BlackBoxDependencies> dep_;
};

class CausalityBlackBox : public BlackBoxProperty {
public:
    std::string name() const override { return "causality"; }
    std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                           const BlackBoxRequest& request) const override {
        return std::make_unique<CausalityAnalysis>(
            BlackBoxDependencies::in(plan, request.tolerance.fixed));
    }
};

} // namespace

std::shared_ptr<const BlackBoxProperty> makeCausalityBlackBox() {
    return std::make_shared<CausalityBlackBox>();
}

} // namespace attnlab
