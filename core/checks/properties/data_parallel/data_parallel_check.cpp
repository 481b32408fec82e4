// SPDX-License-Identifier: GPL-3.0-or-later
// data-parallel (properties.md §2.13): the batch split in halves between two workers, each
// running the same network on its examples and computing their losses ℓ_b = ⟨f(x_b), δ_b⟩ (δ_b
// drawn by the example's original index) and input gradients Jᵀδ_b; the workers' losses are
// added (the all-reduce) and outputs and gradients gathered by original index. This equals the
// whole batch's loss Σ_b ℓ_b, outputs and gradients: exact over the rationals because every
// layer acts on each sequence by itself; in floating point the loss is summed in another order
// and each half is a smaller batch, so the difference is rounding and is reported as such.
#include "core/checks/properties/data_parallel/data_parallel_check.h"

#include "core/checks/check_support.h"
#include "core/model/backward.h"

namespace attnlab {

namespace {

constexpr int kWorkers = 2;

// What one evaluation of the batch gives: per-example outputs, losses and input gradients.
template <class T>
struct BatchResult {
    std::vector<Matrix<T>> outputs, gradients;
    std::vector<T> losses;
    T loss = T(0); // the reduced loss
};

using Shards = std::vector<std::vector<std::size_t>>; // each worker's examples, by index

// The batch, the model and each example's δ_b (drawn by the example's original index).
template <class T>
struct Workers {
    const CheckRequest& request;
    const BatchSetup<T>& batch;
    const Model<T>& model;
    std::vector<Matrix<T>> deltas;

    Workers(const CheckRequest& r, const BatchSetup<T>& b, const Model<T>& m)
        : request(r), batch(b), model(m) {
        for (std::size_t i = 0; i < batch.sequences.size(); ++i)
            deltas.push_back(
                MatrixSpec::random(request.seed * 1000003ULL + 104729ULL + i)
                    .materialize<T>(int(batch.sequences[i].rows()), model.outputWidth()));
    }

    /// Runs `shards`, each a worker's examples, then reduces their losses.
    BatchResult<T> run(const Shards& shards) const {
        const std::size_t size = batch.sequences.size();
        BatchResult<T> r;
        r.outputs.resize(size);
        r.gradients.resize(size);
        r.losses.resize(size);
        for (const auto& shard : shards) {
            pollCancel(request);
            if (shard.empty()) continue;
            const std::vector<Matrix<T>> out = batch.outputs(model, {}, shard);
            T workerLoss = T(0);
            for (std::size_t i = 0; i < shard.size(); ++i) {
                const std::size_t b = shard[i];
                r.outputs[b] = out[i];
                r.losses[b] = out[i].cwiseProduct(deltas[b]).sum();
                workerLoss += r.losses[b];
                r.gradients[b] = vjp(model, batch.sequences[b], deltas[b]);
            }
            r.loss += workerLoss;
        }
        return r;
    }
};

// The whole batch as one shard, and in halves between kWorkers workers.
std::pair<Shards, Shards> wholeAndHalves(std::size_t size) {
    std::vector<std::size_t> all(size);
    for (std::size_t b = 0; b < size; ++b)
        all[b] = b;
    const std::size_t half = (size + 1) / 2;
    return {{all},
            {{all.begin(), all.begin() + long(half)}, {all.begin() + long(half), all.end()}}};
}

// The data-parallel run against the whole batch: the loss, compared at the scale of Σ|ℓ_b| (only
// the order of that sum differs), the outputs and the input gradients.
template <class T>
struct Differences {
    Deviation<T> loss;
    ListDeviation<T> outputs, gradients;
    Deviation<T> worst;

    Differences(const BatchResult<T>& parallel, const BatchResult<T>& whole)
        : loss(compareMatrices<T>(Matrix<T>::Constant(1, 1, parallel.loss),
                                  Matrix<T>::Constant(1, 1, whole.loss))),
          outputs(compareLists(parallel.outputs, whole.outputs)),
          gradients(compareLists(parallel.gradients, whole.gradients)) {
        for (const T& l : whole.losses)
            loss.magnitude += absolute<T>(l);
        worst = loss;
        worst.merge(outputs.deviation);
        worst.merge(gradients.deviation);
    }

    /// The largest difference: the loss, or an entry of an output or input gradient.
    Witness witness(const BatchResult<T>& parallel, const BatchResult<T>& whole) const {
        if (loss.largest >= worst.largest)
            return Witness()
                .with("quantity", "loss")
                .with("data_parallel", scalarJson<T>(parallel.loss))
                .with("whole_batch", scalarJson<T>(whole.loss));
        const bool output = outputs.deviation.largest >= worst.largest;
        return listWitness(output ? outputs : gradients,
                           output ? parallel.outputs : parallel.gradients,
                           output ? whole.outputs : whole.gradients, "example", "data_parallel",
                           "whole_batch")
            .with("quantity", output ? "output" : "gradient");
    }
};

class DataParallelCheck : public TypedCheck<DataParallelCheck> {
public:
    std::string name() const override { return "data-parallel"; }
    /// The check differentiates the model; the passes do not cover every block part yet.
    std::optional<std::string> notApplicable(const Scenario& s) const override {
        return undifferentiablePart(s.model);
    }
    std::string note() const override {
        return "the batch is split in halves between 2 workers, losses added";
    }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const BatchSetup<T> batch(s, request.seed);
        const auto shared = scenarioModel<T>(request); // shared with the other checks
        const Model<T>& model = *shared;
        const std::size_t size = batch.sequences.size();
        const Workers<T> evaluation(request, batch, model);
        const auto [all, workers] = wholeAndHalves(size);
        const BatchResult<T> whole = evaluation.run(all), parallel = evaluation.run(workers);
        const Differences<T> diff(parallel, whole);

        ReportBuilder report(name());
        const std::string difference = report.settleOrderOnly(
            diff.worst, batch.depth + long(size),
            "splitting the batch between workers (smaller batches, the loss summed per "
            "worker, then added)");
        report.checked(batch.checked)
            .checked("workers", kWorkers)
            .checked("compared", {"loss", "outputs", "input gradients"})
            .details({{"shards", workers},
                      {"loss_whole_batch", scalarJson<T>(whole.loss)},
                      {"loss_data_parallel", scalarJson<T>(parallel.loss)},
                      {"loss_deviation", scalarJson<T>(diff.loss.largest)},
                      {"output_deviation", scalarJson<T>(diff.outputs.deviation.largest)},
                      {"gradient_deviation", scalarJson<T>(diff.gradients.deviation.largest)}});
        if (report.fails()) {
            report.witness(diff.witness(parallel, whole));
            report.explain("the data-parallel run is " + difference +
                           " from the whole batch: some layer couples the sequences");
        } else {
            report.explain(
                "loss, outputs and input gradients of 2 workers and of the whole batch: " +
                difference +
                ". Every layer acts on each sequence by itself, so in exact arithmetic "
                "this always holds");
        }
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeDataParallelCheck() {
    return std::make_unique<DataParallelCheck>();
}

} // namespace attnlab
