// logit-symmetry: S = Sᵀ in every layer and head, explained by whether Wq·Wkᵀ is symmetric and
// by the positional bias.
#include "core/checks/properties/logit_symmetry_check.h"

#include "core/checks/check_support.h"
#include "core/checks/properties/worst_head.h"

namespace attnlab {

namespace {

// What makes the logits asymmetric through positions, if anything.
void positionalCauses(const PositionalSpec& pos, std::vector<std::string>& causes) {
    if (pos.kind == PositionalSpec::Kind::Alibi && pos.causal)
        causes.push_back("the causal ALiBi bias -m·(s - t) is antisymmetric");
    if (pos.kind == PositionalSpec::Kind::Rope)
        causes.push_back("RoPE rotates q and k by different angles (the logit depends on j - i)");
}

class LogitSymmetryCheck : public TypedCheck<LogitSymmetryCheck> {
public:
    std::string name() const override { return "logit-symmetry"; }
    std::string note() const override { return "per layer and head"; }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const CheckSetup<T> setup(s);
        const Trace<T> trace = setup.model.forward(setup.tokens);
        nlohmann::json perHead = nlohmann::json::array();
        std::vector<std::string> causes;
        const WorstHead<T> worst = worstOverHeads(trace, [&](std::size_t l, std::size_t h) {
            const LayerWeights<T>& w = setup.model.weights(l);
            const auto p = w.wq.cols() / s.model.layers[l].heads;
            const Matrix<T>& scores = trace.layers[l].heads[h].scores;
            const Deviation<T> d = compareMatrices<T>(scores, scores.transpose());
            const Matrix<T> form = w.wq.middleCols(Eigen::Index(h) * p, p) *
                                   w.wk.middleCols(Eigen::Index(h) * p, p).transpose();
            const bool formSymmetric = compareMatrices<T>(form, form.transpose()).largest == T(0);
            perHead.push_back({{"layer", l},
                               {"head", h},
                               {"deviation", scalarJson<T>(d.largest)},
                               {"wq_wk_symmetric", formSymmetric}});
            if (!formSymmetric) causes.push_back(headName(l, h) + ": Wq·Wkᵀ is not symmetric");
            return d;
        });
        positionalCauses(s.model.positional, causes);
        const std::string why = joinedCauses(causes);

        ReportBuilder report(name());
        report.settle(worst.deviation, setup.depth)
            .checked({{"heads", perHead.size()}})
            .details({{"per_head", perHead}});
        if (report.fails()) {
            report.witness(Witness({WitnessCell::Map::Scores, int(worst.layer), int(worst.head),
                                    int(worst.deviation.row), int(worst.deviation.col)},
                                   CellKeys::WhereRowColumn));
            report.explain(
                why.empty() ? "S is not symmetric at " + headName(worst.layer, worst.head) : why);
        } else {
            report.explain(why.empty() ? "S = Sᵀ in every head: Wq·Wkᵀ and the bias are symmetric"
                                       : "S = Sᵀ on these inputs, although in general: " + why);
        }
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeLogitSymmetryCheck() {
    return std::make_unique<LogitSymmetryCheck>();
}

} // namespace attnlab
