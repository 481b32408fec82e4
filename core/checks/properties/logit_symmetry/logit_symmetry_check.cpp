// SPDX-License-Identifier: GPL-3.0-or-later
// logit-symmetry: S = Sᵀ in every layer and head, explained by whether Wq·Wkᵀ is symmetric and
// by the positional bias.
#include "core/checks/properties/logit_symmetry/logit_symmetry_check.h"

#include "core/checks/check_support.h"
#include "core/checks/properties/shared/worst_head.h"

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
        const CheckSetup<T> setup(request);
        const Trace<T> trace = setup.model.forward(setup.tokens);
        nlohmann::json perHead = nlohmann::json::array();
        std::vector<std::string> causes;
        const WorstHead<T> worst = worstOverHeads(trace, [&](std::size_t l, std::size_t h) {
            const LayerWeights<T>& w = setup.model.weights(l);
            const LayerSpec& layer = s.model.layers[l];
            const auto p = w.wq.cols() / layer.heads;
            // Query head h reads key head h / (heads / kv_heads) (grouped-query attention).
            const Eigen::Index qh = Eigen::Index(h) * p,
                               kh = Eigen::Index(h /
                                                 std::size_t(layer.heads / layer.keyValueHeads())) *
                                    p;
            const Matrix<T>& scores = trace.layers[l].heads[h].scores;
            const Deviation<T> d = compareMatrices<T>(scores, scores.transpose());
            const auto wq = w.wq.middleCols(qh, p), wk = w.wk.middleCols(kh, p);
            const Matrix<T> form = wq * wk.transpose();
            const bool formSymmetric = compareMatrices<T>(form, form.transpose()).largest == T(0);
            // With biases, S[s][t] gains x_s·Wq·bkᵀ + bq·Wkᵀ·x_tᵀ: symmetric for every x only
            // when Wq·bkᵀ = Wk·bqᵀ.
            const auto biasOf = [&](const RowVector<T>& b, Eigen::Index at) {
                return b.size() ? Matrix<T>(b.middleCols(at, p).transpose())
                                : Matrix<T>::Zero(p, 1);
            };
            const Matrix<T> queryTerm = wq * biasOf(w.bk, kh), keyTerm = wk * biasOf(w.bq, qh);
            const bool biasSymmetric = compareMatrices<T>(queryTerm, keyTerm).largest == T(0);
            perHead.push_back({{"layer", l},
                               {"head", h},
                               {"deviation", scalarJson<T>(d.largest)},
                               {"wq_wk_symmetric", formSymmetric},
                               {"biases_symmetric", biasSymmetric}});
            if (!formSymmetric) causes.push_back(headName(l, h) + ": Wq·Wkᵀ is not symmetric");
            if (!biasSymmetric)
                causes.push_back(headName(l, h) + ": the biases give Wq·bkᵀ ≠ Wk·bqᵀ");
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
