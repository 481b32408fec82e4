// SPDX-License-Identifier: GPL-3.0-or-later
// Pieces every check shares: evaluating in the scenario's scalar type (TypedCheck), the model and
// tokens of a scenario in scalar type T, the accumulation depth behind tolerances, parameter
// reading, the batch the batch properties run along.
#pragma once

#include "core/backend/registry.h"
#include "core/base/parallel.h"
#include "core/base/precision_dispatch.h"
#include "core/checks/comparison.h"
#include "core/checks/model_cache.h"
#include "core/checks/property_check.h"
#include "core/checks/report_builder.h"
#include "core/model/model.h"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {

/// Throws CancelledError when the request was cancelled.
void pollCancel(const CheckRequest& request);

/// Calls body(i) for i in [0, count), independent items of about `work` multiply-adds in all,
/// spread over the CPU threads (serially when small), each polling for cancellation first.
/// Bodies must write disjoint results; the first exception is rethrown here.
template <class Body>
void forEachItem(const CheckRequest& request, long count, double work, Body&& body) {
    kernels::parallelFor(
        count,
        [&](long i) {
            pollCancel(request);
            body(i);
        },
        work);
}

/// The scenario's model in scalar type T: the one shared through request.models when it serves
/// this scenario, else built for this check alone.
template <class T>
std::shared_ptr<const Model<T>> scenarioModel(const CheckRequest& request) {
    const Scenario& s = request.scenario;
    if (request.models && request.models->serves(s)) return request.models->model<T>();
    return std::make_shared<const Model<T>>(s.model, s.d(), s.backend);
}

/// The accumulation length behind the float tolerance of a scenario's results: (n + d) per
/// layer, times the layers.
long accumulationDepth(const Scenario& s);

template <class T>
struct CheckSetup {
    std::shared_ptr<const Model<T>> shared;
    const Model<T>& model;
    Matrix<T> tokens;
    long depth; // accumulation length behind the float tolerance: (n + width) per layer
    BackendChoice backend;
    Precision precision;

    explicit CheckSetup(const CheckRequest& request)
        : shared(scenarioModel<T>(request)), model(*shared),
          tokens(request.scenario.tokens.materialize<T>()),
          depth(accumulationDepth(request.scenario)), backend(request.scenario.backend),
          precision(precisionOf<T>()) {}

    Matrix<T> output(const Matrix<T>& x) const { return model.forward(x, Maps::Drop).output; }
    /// The first `rows` rows of f(x), computing no more of the last layer than they need.
    Matrix<T> firstRows(const Matrix<T>& x, Eigen::Index rows) const {
        Evaluation how;
        how.outputRows = int(rows);
        return model.forwardBatch({x}, Maps::Drop, how).front().output.topRows(rows);
    }

    /// f of each input: on the CPU a forward each, spread over the threads; on a device one
    /// forward batch (one launch per layer for them all).
    std::vector<Matrix<T>> outputs(const CheckRequest& request,
                                   const std::vector<Matrix<T>>& inputs) const {
        std::vector<Matrix<T>> out(inputs.size());
        if (!computesOnDevice(backend, precision)) {
            forEachForward(request, long(inputs.size()),
                           [&](long i) { out[std::size_t(i)] = output(inputs[std::size_t(i)]); });
            return out;
        }
        pollCancel(request);
        std::vector<Trace<T>> traces = model.forwardBatch(inputs, Maps::Drop);
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = std::move(traces[i].output);
        return out;
    }
    /// How many forwards of the tokens a sweep hands to `outputs` at once: as many as threads on
    /// the CPU, a batch of up to kDeviceBatchRows token rows on a device.
    std::size_t sweepRound() const {
        if (!computesOnDevice(backend, precision))
            return std::size_t(std::max(1, kernels::availableThreads()));
        return std::size_t(std::max<Eigen::Index>(1, kDeviceBatchRows / tokens.rows()));
    }
    /// Token rows per forward batch of a sweep on a device (the host holds its activations).
    static constexpr Eigen::Index kDeviceBatchRows = Eigen::Index(1) << 17;
    /// forEachItem over `count` independent forwards of the model; serial when the model computes
    /// on a device (driven from one thread).
    template <class Body>
    void forEachForward(const CheckRequest& request, long count, Body&& body) const {
        forEachItem(request, count,
                    computesOnDevice(backend, precision) ? 0.0 : double(count) * forwardWork(),
                    std::forward<Body>(body));
    }
    /// About how many multiply-adds one forward of the tokens costs.
    double forwardWork() const {
        return double(tokens.rows()) * double(tokens.cols()) * double(depth);
    }
};

/// The rows `keep` of x, in that order (the tokens a shrunk witness keeps).
template <class T>
Matrix<T> rowsOf(const Matrix<T>& x, const std::vector<int>& keep) {
    Matrix<T> out(static_cast<Eigen::Index>(keep.size()), x.cols());
    for (std::size_t i = 0; i < keep.size(); ++i)
        out.row(Eigen::Index(i)) = x.row(keep[i]);
    return out;
}
/// Shrinkers drop tokens one by one (a forward or more per try) only up to this many tokens.
constexpr long kShrinkTokensUpTo = 10;

/// Reads an integer parameter (default `fallback`), refusing values outside [lo, hi].
long integerParam(const CheckRequest& request, const std::string& key, long fallback, long lo,
                  long hi);
/// The integers an integer-or-list parameter `key` gives (`value`: one integer or a non-empty
/// list of them), in the order given; refuses an empty list (it would check nothing, and hold).
std::vector<long> integerList(const nlohmann::json& value, const std::string& key);
/// The shape of every check: evaluate() calls Derived::evaluateIn<T>(request) in the scenario's
/// scalar type.
template <class Derived>
class TypedCheck : public PropertyCheck {
protected:
    PropertyReport evaluate(const CheckRequest& request) const final {
        return withScalar(request.scenario.precision, [&]<class T>() {
            return static_cast<const Derived&>(*this).template evaluateIn<T>(request);
        });
    }
};

/// How many sequences the batch properties draw besides the tokens when the scenario has no batch.
inline constexpr int kDrawnSequences = 3;

/// The sequences after the tokens in the batch the batch properties run along: the scenario's
/// `batch`, or, when it has none, kDrawnSequences of the tokens' shape drawn from `seed`.
std::vector<TokenSpec> batchMates(const Scenario& s, std::uint64_t seed);

/// The batch the batch properties run along (properties.md §2.11-2.13): the scenario's tokens
/// first, then its `batch`; when it has none, `kDrawnSequences` more of the tokens' shape drawn
/// from the check's seed.
template <class T>
struct BatchSetup {
    std::vector<Matrix<T>> sequences;
    long depth = 0; // as CheckSetup's, for the longest sequence
    nlohmann::json checked;

    BatchSetup(const Scenario& s, std::uint64_t seed) {
        sequences.push_back(s.tokens.materialize<T>());
        for (const TokenSpec& mate : batchMates(s, seed))
            sequences.push_back(mate.materialize<T>());
        const bool drawn = s.batch.empty();
        std::vector<long> lengths;
        long longest = 0;
        for (const auto& x : sequences) {
            lengths.push_back(long(x.rows()));
            longest = std::max(longest, long(x.rows()));
        }
        depth = (longest + s.d()) * long(s.model.layers.size());
        checked = {{"sequences", sequences.size()},
                   {"lengths", lengths},
                   {"batch", drawn ? "drawn: the tokens and " + std::to_string(kDrawnSequences) +
                                         " random sequences"
                                   : "the scenario's tokens and batch"}};
        if (drawn) checked["seed"] = seed;
    }

    /// The model's outputs on `order` (indices into `sequences`; all of them when empty), run
    /// as one batch evaluated as `how` says.
    std::vector<Matrix<T>> outputs(const Model<T>& model, const Evaluation& how = {},
                                   const std::vector<std::size_t>& order = {}) const {
        std::vector<Matrix<T>> inputs;
        if (order.empty()) inputs = sequences;
        for (std::size_t i : order)
            inputs.push_back(sequences.at(i));
        std::vector<Matrix<T>> out;
        for (Trace<T>& t : model.forwardBatch(inputs, Maps::Drop, how))
            out.push_back(std::move(t.output));
        return out;
    }
};

/// The witness of a list comparison (on the output map): which pair (`indexKey`), the entry and
/// both values.
template <class T>
Witness listWitness(const ListDeviation<T>& d, const std::vector<Matrix<T>>& a,
                    const std::vector<Matrix<T>>& b, const std::string& indexKey,
                    const std::string& aName, const std::string& bName) {
    const Eigen::Index row = d.deviation.row, col = d.deviation.col;
    return Witness({WitnessCell::Map::Output, -1, -1, int(row), int(col)}, CellKeys::RowColumn)
        .with(indexKey, d.index)
        .with(aName, scalarJson<T>(a[d.index](row, col)))
        .with(bName, scalarJson<T>(b[d.index](row, col)));
}

/// Why a model is not permutation-equivariant, naming each cause (positions, masks, ssm).
std::string equivarianceBreakers(const Scenario& scenario);

} // namespace attnlab
