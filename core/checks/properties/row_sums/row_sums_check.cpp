// SPDX-License-Identifier: GPL-3.0-or-later
// row-sums: the weights of softmax and softmax_like rows sum to 1 (all-masked rows are 0 by
// design), in every head of every such layer.
#include "core/checks/properties/row_sums/row_sums_check.h"

#include "core/checks/check_support.h"
#include "core/checks/properties/shared/worst_head.h"

#include <algorithm>

namespace attnlab {

namespace {

// The layers whose rows sum to 1: softmax and softmax_like.
std::vector<std::size_t> normalisedLayers(const Scenario& s) {
    std::vector<std::size_t> layers;
    for (std::size_t l = 0; l < s.model.layers.size(); ++l) {
        const auto kind = s.model.layers[l].mixer.kind;
        if (kind == MixerSpec::Kind::Softmax || kind == MixerSpec::Kind::SoftmaxLike)
            layers.push_back(l);
    }
    return layers;
}

class RowSumsCheck : public TypedCheck<RowSumsCheck> {
public:
    std::string name() const override { return "row-sums"; }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const std::vector<std::size_t> layers = normalisedLayers(s);
        const CheckSetup<T> setup(request);
        const Trace<T> trace = setup.model.forward(setup.tokens);
        long rows = 0;
        const WorstHead<T> worst = worstOverHeads(trace, [&](std::size_t l, std::size_t h) {
            if (std::find(layers.begin(), layers.end(), l) == layers.end()) return Deviation<T>{};
            const Matrix<T>& w = trace.layers[l].heads[h].weights;
            const BoolMatrix mask = buildMask(s.model.layers[l].mask, s.n());
            Matrix<T> sums(w.rows(), 1), ones = Matrix<T>::Ones(w.rows(), 1);
            for (Eigen::Index i = 0; i < w.rows(); ++i) {
                pollCancel(request);
                sums(i, 0) = w.row(i).sum();
            }
            for (Eigen::Index i = 0; i < w.rows(); ++i)
                if (!mask.row(i).any())
                    sums(i, 0) = ones(i, 0) = T(0); // all-masked: 0 by design
                else
                    ++rows;
            return compareMatrices<T>(sums, ones);
        });
        // A row, not a cell: the witness names it in words only.
        const std::string where =
            headName(worst.layer, worst.head) + " row " + std::to_string(worst.deviation.row);
        ReportBuilder report(name());
        report.settle(worst.deviation, setup.depth).checked({{"rows", rows}, {"layers", layers}});
        if (report.fails()) report.witness(Witness().with("where", where));
        report.explain("every row with an allowed key sums to 1 (all-masked rows are 0 by design)",
                       "a row does not sum to 1 at " + where);
        return std::move(report).build();
    }

protected:
    std::optional<std::string> notApplicable(const Scenario& s) const override {
        if (!normalisedLayers(s).empty()) return {};
        return "rows sum to 1 only for softmax and softmax_like; these layers use raw or ssm "
               "mixers";
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeRowSumsCheck() {
    return std::make_unique<RowSumsCheck>();
}

} // namespace attnlab
