// SPDX-License-Identifier: GPL-3.0-or-later
// batch-invariance of a black box (properties.md §2.11, §3): the tokens alone in a call of their
// own, and inside the large call of the other properties beside drawn sequences, in order and
// again reversed; every sequence's outputs must agree wherever it sat. The witness names the
// sequence, the entry and the two batch compositions.
#include "core/checks/properties/batch_invariance/batch_invariance_check.h"

#include "core/base/random.h"
#include "core/checks/check_support.h"

namespace attnlab {

namespace {

// Sequences drawn beside the tokens.
constexpr int kMates = 3;

struct Placed {
    std::string sequence; // "the tokens", "drawn sequence 1", ...
    BlackBoxPlan::Handle reference, other;
};

std::string where(const Placement& p) {
    if (p.batchSize == 1) return "alone (a batch of 1)";
    return "position " + std::to_string(p.position) + " of a batch of " +
           std::to_string(p.batchSize);
}

class BatchAnalysis : public BlackBoxAnalysis {
public:
    explicit BatchAnalysis(std::vector<Placed> placed) : placed_(std::move(placed)) {}

    PropertyReport report(const BlackBoxPlan& plan, const BlackBoxRequest& request) override {
        const BlackBoxTolerance& tol = request.tolerance;
        Deviation<double> worst;
        const Placed* worstAt = nullptr;
        double worstRatio = -1;
        nlohmann::json compared = nlohmann::json::array();
        for (const Placed& p : placed_) {
            const Deviation<double> d =
                compareMatrices<double>(plan.output(p.other), plan.output(p.reference));
            const double ratio = tol.equalityRatio(d);
            compared.push_back({{"sequence", p.sequence},
                                {"reference", where(plan.placement(p.reference))},
                                {"other", where(plan.placement(p.other))},
                                {"deviation", d.largest},
                                {"ulps", d.ulps}});
            if (ratio > worstRatio) {
                worstRatio = ratio;
                worst = d;
                worstAt = &p;
            }
        }
        ReportBuilder report("batch-invariance");
        tol.settleEquality(report, worst);
        report
            .checked({{"sequences", 1 + kMates},
                      {"compositions", placed_.size()},
                      {"seed", plan.seed()}})
            .details({{"compared", compared}, {"largest_ulps", worst.ulps}});
        if (worstAt && worst.row >= 0 && worst.largest > 0) {
            const Sequence &a = plan.output(worstAt->other), &b = plan.output(worstAt->reference);
            Witness w({WitnessCell::Map::Output, -1, -1, int(worst.row), int(worst.col)},
                      CellKeys::RowColumn);
            w.with("sequence", worstAt->sequence)
                .with("in_batch", a(worst.row, worst.col))
                .with("composition", where(plan.placement(worstAt->other)))
                .with("alone", b(worst.row, worst.col))
                .with("reference_composition", where(plan.placement(worstAt->reference)))
                .with("ulps", worst.ulps);
            if (report.fails()) report.witness(w);
        }
        report.explain("each sequence gives the same outputs alone and wherever it sits in a "
                       "batch (largest difference " +
                           std::to_string(worst.ulps) + " ulps)",
                       "a sequence's outputs depend on the batch it is evaluated in: the "
                       "program couples sequences (a statistic over the batch, a reduction "
                       "whose order depends on the batch size)");
        return std::move(report).build();
    }

private:
    std::vector<Placed> placed_;
};

class BatchInvarianceBlackBox : public BlackBoxProperty {
public:
    std::string name() const override { return "batch-invariance"; }
    std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                           const BlackBoxRequest&) const override {
        const Sequence& x = plan.tokens();
        const double size = std::max(1.0, x.cwiseAbs().maxCoeff());
        std::vector<Sequence> mates;
        SplitMix64 random(plan.seed() * 1000003ULL + 7919ULL);
        for (int k = 0; k < kMates; ++k)
            mates.push_back(
                Sequence::NullaryExpr(x.rows(), x.cols(), [&] { return size * random.normal(); }));
        // The big call holds the tokens first (the baseline) and the mates in order; then the
        // mates reversed and the tokens again, later in the same call; the tokens alone last.
        std::vector<Placed> placed;
        const auto first = plan.baseline();
        std::vector<BlackBoxPlan::Handle> inOrder;
        for (const Sequence& m : mates)
            inOrder.push_back(plan.add(m));
        for (int k = kMates - 1; k >= 0; --k)
            placed.push_back({"drawn sequence " + std::to_string(k + 1), inOrder[std::size_t(k)],
                              plan.add(mates[std::size_t(k)])});
        const auto alone = plan.addAlone(x);
        placed.push_back({"the tokens", alone, first});
        placed.push_back({"the tokens", alone, plan.add(x)});
        return std::make_unique<BatchAnalysis>(std::move(placed));
    }
};

} // namespace

std::shared_ptr<const BlackBoxProperty> makeBatchInvarianceBlackBox() {
    return std::make_shared<BatchInvarianceBlackBox>();
}

} // namespace attnlab
