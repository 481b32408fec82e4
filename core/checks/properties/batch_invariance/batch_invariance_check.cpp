// SPDX-License-Identifier: GPL-3.0-or-later
// batch-invariance (properties.md §2.11): along a batch of independent sequences, selecting,
// reordering or repeating examples before the model equals doing it after, and one example alone
// gives the same result as inside the batch. The batched evaluation stacks the rows of every
// sequence for the token-wise products, as a batched kernel does, so in floating point its
// reduction order may depend on the batch: such differences are reported as rounding.
#include "core/checks/properties/batch_invariance/batch_invariance_check.h"

#include "core/checks/check_support.h"

#include <numeric>

namespace attnlab {

namespace {

struct Arrangement {
    std::string name;
    std::vector<std::size_t> order; // indices into the batch
};

// The whole batch, the batch reversed, and a selection with a repeat (last, first, last).
std::vector<Arrangement> arrangements(std::size_t size) {
    std::vector<std::size_t> whole(size);
    std::iota(whole.begin(), whole.end(), std::size_t(0));
    std::vector<std::size_t> reversed(whole.rbegin(), whole.rend());
    return {{"whole batch", whole},
            {"reordered (reversed)", reversed},
            {"selected and repeated", {size - 1, 0, size - 1}}};
}

class BatchInvarianceCheck : public TypedCheck<BatchInvarianceCheck> {
public:
    std::string name() const override { return "batch-invariance"; }
    std::string note() const override {
        return "uses the scenario's batch, or draws " + std::to_string(kDrawnSequences) +
               " sequences besides the tokens";
    }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const BatchSetup<T> batch(s, request.seed);
        const auto shared = scenarioModel<T>(request); // shared with the other checks
        const Model<T>& model = *shared;
        std::vector<Matrix<T>> alone;
        for (std::size_t b = 0; b < batch.sequences.size(); ++b)
            alone.push_back(batch.outputs(model, {}, {b}).front());

        Deviation<T> worst;
        nlohmann::json perArrangement = nlohmann::json::array();
        std::optional<Witness> witness;
        for (const Arrangement& a : arrangements(batch.sequences.size())) {
            pollCancel(request);
            const std::vector<Matrix<T>> inBatch = batch.outputs(model, {}, a.order);
            std::vector<Matrix<T>> expected;
            for (std::size_t i : a.order)
                expected.push_back(alone[i]);
            const ListDeviation<T> d = compareLists(inBatch, expected);
            perArrangement.push_back({{"arrangement", a.name},
                                      {"order", a.order},
                                      {"deviation", scalarJson<T>(d.deviation.largest)}});
            if (!witness || d.deviation.largest > worst.largest)
                witness = listWitness(d, inBatch, expected, "position", "in_batch", "alone")
                              .with("arrangement", a.name)
                              .with("example", a.order[d.index]);
            worst.merge(d.deviation);
        }
        ReportBuilder report(name());
        const std::string difference = report.settleOrderOnly(
            worst, batch.depth, "stacking the batch's rows for the token-wise products");
        report.checked(batch.checked)
            .checked("arrangements", perArrangement.size())
            .details({{"per_arrangement", perArrangement}});
        if (report.fails())
            report.witness(*witness).explain(
                "an example inside the batch is " + difference +
                " from the same example alone: the evaluation couples sequences");
        else
            report.explain("each example alone and inside the batch (whole, reordered, selected "
                           "and repeated): " +
                           difference +
                           ". Every layer acts on each sequence by itself, so in exact "
                           "arithmetic this always holds");
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeBatchInvarianceCheck() {
    return std::make_unique<BatchInvarianceCheck>();
}

} // namespace attnlab
