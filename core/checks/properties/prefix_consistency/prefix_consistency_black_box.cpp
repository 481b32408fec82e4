// SPDX-License-Identifier: GPL-3.0-or-later
// prefix-consistency of a black box (prefix_consistency_black_box.h): one call per length m;
// the witness names m and the first position whose output differs.
#include "core/checks/properties/prefix_consistency/prefix_consistency_black_box.h"

#include "core/base/error.h"
#include "core/checks/check_support.h"

#include <set>

namespace attnlab {

namespace {

struct Prefix {
    long length;
    BlackBoxPlan::Handle handle;
};

// The first row of `a` that differs from the same row of `b` beyond the tolerance, if any.
std::optional<Deviation<double>> firstDiffering(const Sequence& a, const Sequence& b,
                                                const BlackBoxTolerance& tol) {
    for (Eigen::Index r = 0; r < a.rows(); ++r) {
        Deviation<double> d = compareMatrices<double>(a.row(r), b.row(r));
        if (d.largest > tol.equality(d.magnitude)) {
            d.row = r;
            return d;
        }
    }
    return std::nullopt;
}

class PrefixAnalysis : public BlackBoxAnalysis {
public:
    PrefixAnalysis(BlackBoxPlan::Handle whole, std::vector<Prefix> prefixes)
        : whole_(whole), prefixes_(std::move(prefixes)) {}

    PropertyReport report(const BlackBoxPlan& plan, const BlackBoxRequest& request) override {
        const Sequence& fx = plan.output(whole_);
        const BlackBoxTolerance& tol = request.tolerance;
        Deviation<double> worst;
        double worstRatio = -1;
        std::optional<Witness> witness;
        nlohmann::json perLength = nlohmann::json::array();
        for (const Prefix& p : prefixes_) {
            const Sequence& alone = plan.output(p.handle);
            const Sequence whole = fx.topRows(p.length);
            const Deviation<double> d = compareMatrices<double>(alone, whole);
            perLength.push_back({{"length", p.length}, {"deviation", d.largest}});
            const double ratio = tol.equalityRatio(d);
            if (ratio > worstRatio) {
                worstRatio = ratio;
                worst = d;
            }
            const auto first = firstDiffering(alone, whole, tol);
            if (first && !witness)
                witness =
                    Witness({WitnessCell::Map::Output, -1, -1, int(first->row), int(first->col)},
                            CellKeys::RowColumn)
                        .with("length", p.length)
                        .with("prefix_alone", alone(first->row, first->col))
                        .with("whole_pass", whole(first->row, first->col));
        }
        ReportBuilder report("prefix-consistency");
        tol.settleEquality(report, worst, witness.has_value());
        std::vector<long> lengths;
        for (const Prefix& p : prefixes_)
            lengths.push_back(p.length);
        report.checked({{"lengths", lengths}}).details({{"per_length", perLength}});
        if (witness) report.witness(*witness);
        report.explain("the first m tokens alone give the first m rows of the whole pass, for "
                       "every m tried",
                       "the first m tokens alone give other outputs than inside the whole pass: "
                       "the program reads later tokens or the length itself (positions scaled "
                       "by n, a mask or padding computed from n)");
        return std::move(report).build();
    }

private:
    BlackBoxPlan::Handle whole_;
    std::vector<Prefix> prefixes_;
};

class PrefixConsistencyBlackBox : public BlackBoxProperty {
public:
    std::string name() const override { return "prefix-consistency"; }
    std::string section() const override { return "2.16"; }
    std::vector<CheckParameter> parameters() const override {
        return {{"lengths", CheckParameter::Type::IntegerOrList, "n/2 and n - 1",
                 "prefix lengths m, each one call"}};
    }
    std::optional<std::string> notApplicable(const BlackBoxRequest& request) const override {
        if (request.queries > 0) return "a decode step returns only the last queries' rows";
        return std::nullopt;
    }
    std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                           const BlackBoxRequest& request) const override {
        const auto n = long(plan.tokens().rows());
        std::set<long> lengths;
        if (request.params.contains("lengths")) {
            for (long m : integerList(request.params["lengths"], "lengths")) {
                if (m < 1 || m >= n)
                    throw InputError("prefix-consistency: lengths must be from 1 to n - 1 = " +
                                     std::to_string(n - 1) + " (got " + std::to_string(m) + ")");
                lengths.insert(m);
            }
        } else {
            for (long m : {n / 2, n - 1})
                if (m >= 1) lengths.insert(m);
        }
        std::vector<Prefix> prefixes;
        for (long m : lengths)
            prefixes.push_back({m, plan.add(plan.tokens().topRows(m))});
        return std::make_unique<PrefixAnalysis>(plan.baseline(), std::move(prefixes));
    }
};

} // namespace

std::shared_ptr<const BlackBoxProperty> makePrefixConsistencyBlackBox() {
    return std::make_shared<PrefixConsistencyBlackBox>();
}

} // namespace attnlab
