// SPDX-License-Identifier: GPL-3.0-or-later
// Measuring dependencies on the model's own numbers, for locality and causality: how much an
// output row moves when input tokens are perturbed (by two generic vectors each; exact in exact
// mode), the per-token dependency map D[s][t] ("output s changes when input token t changes"),
// the bound the layers' masks imply, and the pairs that break a claimed bound. The forwards
// spread over the CPU threads, or go to the device in batches.
#pragma once

#include "core/checks/check_support.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

namespace attnlab {

/// What a row's change is measured against: the float rule for `depth` accumulations
/// (comparison.h), or a rule of the caller's (a black box's dependence threshold, black_box.h).
template <class T>
class RowTolerance {
public:
    RowTolerance(long depth) : depth_(depth) {} // implicit: the model's checks pass their depth
    explicit RowTolerance(std::function<T(const T&)> rule) : rule_(std::move(rule)) {}
    T operator()(const T& magnitude) const {
        return rule_ ? rule_(magnitude) : attnlab::tolerance<T>(magnitude, depth_);
    }

private:
    long depth_ = 0;
    std::function<T(const T&)> rule_;
};

// How much one output row moved between two evaluations: the largest |Δ| over its columns,
// where, and the row's magnitude before and after. Its tolerance scales with the row's own
// magnitude, not the largest value anywhere: the rows of a raw mixer can differ by orders of
// magnitude, and a global scale would hide real dependencies of the small ones. (A row whose
// inputs did not change is recomputed by the same arithmetic, so rounding alone never moves it.)
template <class T>
struct RowChange {
    T largest = T(0), magnitude = T(0);
    Eigen::Index column = 0;
    T before = T(0), after = T(0);

    RowChange() = default;
    RowChange(const Matrix<T>& was, const Matrix<T>& is, Eigen::Index row)
        : before(was(row, 0)), after(is(row, 0)) {
        for (Eigen::Index c = 0; c < was.cols(); ++c) {
            const T delta = absolute<T>(T(is(row, c) - was(row, c)));
            magnitude = std::max({magnitude, absolute<T>(was(row, c)), absolute<T>(is(row, c))});
            if (delta > largest) { // a NaN difference never hides a real one
                largest = delta;
                column = c;
                before = was(row, c);
                after = is(row, c);
            }
        }
    }
    T tolerance(const RowTolerance<T>& rule) const { return rule(magnitude); }
    bool exceeds(const RowTolerance<T>& rule) const { return largest > tolerance(rule); }
    /// Beyond its tolerance where `other` is not, or further beyond (or less within) it.
    bool worseThan(const RowChange& other, const RowTolerance<T>& rule) const {
        if (exceeds(rule) != other.exceeds(rule)) return exceeds(rule);
        const T mine = tolerance(rule), theirs = other.tolerance(rule);
        if (mine > T(0) && theirs > T(0)) return largest / mine > other.largest / theirs;
        return largest > other.largest;
    }
    /// Settles `report` on this change at entry (row, col), against this row's tolerance.
    void settleReport(ReportBuilder& report, Eigen::Index row, Eigen::Index col, long depth) const {
        Deviation<T> d;
        d.largest = largest;
        d.magnitude = magnitude;
        d.row = row;
        d.col = col;
        report.settle(d, depth);
        if (!report.exact())
            report.extendToleranceRule(
                " (largest |value|: of the output row compared, before and after)");
    }
};

template <class T>
struct Dependencies {
    BoolMatrix map;                                 // D[s][t]
    std::vector<std::vector<RowChange<T>>> changes; // [t][s]: output s when token t changes
    const RowChange<T>& at(Eigen::Index s, Eigen::Index t) const {
        return changes[std::size_t(t)][std::size_t(s)];
    }
};

// The k-th generic move of every token of an n x d input: entry (t, j) is scale·(3 + 2k + j) /
// (7 + 5t + 3j + k). Computed once per sweep (a suffix sweep perturbs n²/2 entries).
template <class T>
Matrix<T> genericMove(Eigen::Index n, Eigen::Index d, T scale, int k) {
    Matrix<T> move(n, d);
    for (Eigen::Index j = 0; j < d; ++j)
        for (Eigen::Index t = 0; t < n; ++t)
            move(t, j) = scale * (T(long(3 + 2 * k + j)) / T(long(7 + 5 * t + 3 * j + k)));
    return move;
}

/// The inputs of one item of a sweep (Baseline::sweep): each perturbed X and how many of the
/// first rows of its output are read.
template <class T>
using Perturbations = std::vector<std::pair<Matrix<T>, Eigen::Index>>;

// What both sweeps perturb from: the tokens X, f(X), and how large a perturbation is. Where
// the model allows it, f(X) is kept as a record, and each perturbed forward computes only the
// attention blocks its changed rows reach (Model::forwardFrom); the others are the record's.
template <class T>
struct Baseline {
    const CheckSetup<T>& setup;
    const Matrix<T>& x;
    std::optional<ForwardRecord<T>> record;
    Matrix<T> fx;
    T scale = T(1);                 // max(1, max |X|)
    std::array<Matrix<T>, 2> moves; // genericMove 0 and 1 of every token

    explicit Baseline(const CheckSetup<T>& s) : setup(s), x(s.tokens) {
        if (setup.model.reusesBlocks()) record = setup.model.record(x);
        fx = record ? record->output : setup.output(x);
        for (Eigen::Index i = 0; i < x.size(); ++i)
            scale = std::max<T>(scale, absolute<T>(x(i)));
        for (int k = 0; k < 2; ++k)
            moves[std::size_t(k)] = genericMove(x.rows(), x.cols(), scale, k);
    }
    /// The first `rows` rows of f(xp), for xp that differs from X in a few rows.
    Matrix<T> outputRows(const Matrix<T>& xp, Eigen::Index rows) const {
        if (record) return setup.model.forwardFrom(*record, xp, int(rows));
        return rows == x.rows() ? setup.output(xp) : setup.firstRows(xp, rows);
    }

    /// A sweep of `count` items, item i perturbing X as `inputs(i)` says (its Perturbations), then
    /// `use(i, outputs)` with f of each (only those rows are meaningful). On the CPU, each item's
    /// forwards run on a thread of their own (forEachForward; use() must write disjoint results),
    /// each computing only the blocks its changed rows reach; on a device, the forwards of many
    /// items go as one batch, one launch per layer, and use() runs in item order.
    template <class Inputs, class Use>
    void sweep(const CheckRequest& request, long count, Inputs&& inputs, Use&& use) const {
        if (!computesOnDevice(setup.backend, setup.precision)) {
            setup.forEachForward(request, count, [&](long i) {
                std::vector<Matrix<T>> outputs;
                for (const auto& [xp, rows] : inputs(i))
                    outputs.push_back(outputRows(xp, rows));
                use(i, std::move(outputs));
            });
            return;
        }
        for (long first = 0; first < count;) {
            std::vector<Matrix<T>> batch;
            std::vector<std::size_t> perItem;
            long last = first;
            for (; last < count && long(batch.size()) * x.rows() < setup.kDeviceBatchRows; ++last) {
                perItem.push_back(0);
                for (auto& [xp, rows] : inputs(last)) {
                    batch.push_back(std::move(xp));
                    ++perItem.back();
                }
            }
            std::vector<Matrix<T>> fs = setup.outputs(request, batch);
            std::size_t at = 0;
            for (long i = first; i < last; ++i) {
                std::vector<Matrix<T>> outputs;
                for (std::size_t j = 0; j < perItem[std::size_t(i - first)]; ++j)
                    outputs.push_back(std::move(fs[at++]));
                use(i, std::move(outputs));
            }
            first = last;
        }
    }
    /// X with tokens [from, to) moved by a generic vector each, the k-th (0 or 1) of its kind.
    Matrix<T> perturbed(Eigen::Index from, Eigen::Index to, int k) const {
        Matrix<T> xp = x;
        xp.middleRows(from, to - from) += moves.at(std::size_t(k)).middleRows(from, to - from);
        return xp;
    }
    /// Which rows of f(xp)'s first rows (all of `fxp`'s) differ from f(X)'s (a NaN counts as
    /// moved): 1 or 0, compared a column at a time (bytes, not bool, so that it vectorises).
    Eigen::Array<std::uint8_t, Eigen::Dynamic, 1> movedRows(const Matrix<T>& fxp) const {
        using Flags = Eigen::Array<std::uint8_t, Eigen::Dynamic, 1>;
        Flags moved = Flags::Zero(fxp.rows());
        std::uint8_t* const flags = moved.data();
        for (Eigen::Index c = 0; c < fxp.cols(); ++c) {
            const T *is = fxp.col(c).data(), *was = fx.col(c).data();
            for (Eigen::Index s = 0; s < fxp.rows(); ++s)
                flags[s] |= is[s] != was[s];
        }
        return moved;
    }
};

/// Records how each output row moved when token t was perturbed (`outputs`: f of each
/// perturbation of it, `fx`: f of the tokens): the worst change per row, and column t of the map.
/// Writes changes[t] and column t only, so tokens can be recorded in parallel.
template <class T>
void recordTokenChanges(Dependencies<T>& dep, Eigen::Index t, const Matrix<T>& fx,
                        const std::vector<Matrix<T>>& outputs, const RowTolerance<T>& rule) {
    const Eigen::Index rows = fx.rows();
    std::vector<RowChange<T>>& column = dep.changes[std::size_t(t)];
    column.resize(std::size_t(rows));
    for (std::size_t k = 0; k < outputs.size(); ++k)
        for (Eigen::Index s = 0; s < rows; ++s) {
            const RowChange<T> change(fx, outputs[k], s);
            if (k == 0 || change.worseThan(column[std::size_t(s)], rule))
                column[std::size_t(s)] = change;
        }
    for (Eigen::Index s = 0; s < rows; ++s)
        dep.map(s, t) = column[std::size_t(s)].exceeds(rule);
}

/// The dependency map of the model on the scenario's tokens, one task per token.
template <class T>
Dependencies<T> measureDependencies(const CheckSetup<T>& setup, const CheckRequest& request) {
    const Baseline<T> base(setup);
    const auto n = base.x.rows();
    Dependencies<T> dep{BoolMatrix::Constant(n, n, false),
                        std::vector<std::vector<RowChange<T>>>(static_cast<std::size_t>(n))};
    // One item per token t, writing changes[t] and column t of the map only: two generic
    // perturbations of t, so that no change cancels by chance.
    base.sweep(
        request, long(n),
        [&](long t) {
            Perturbations<T> both; // not an initializer list, which copies each matrix
            both.emplace_back(base.perturbed(t, t + 1, 0), n);
            both.emplace_back(base.perturbed(t, t + 1, 1), n);
            return both;
        },
        [&](long t, const std::vector<Matrix<T>>& outputs) {
            recordTokenChanges(dep, t, base.fx, outputs, RowTolerance<T>(setup.depth));
        });
    return dep;
}

// The pairs (s, t) that `violates` selects: the one whose change is worst, and the nearest
// (smallest |s - t|) that the map marks as a dependency.
struct Violations {
    std::optional<std::pair<Eigen::Index, Eigen::Index>> worst, nearest;
};

template <class T, class Pred>
Violations findViolations(const Dependencies<T>& dep,
                          const std::type_identity_t<RowTolerance<T>>& rule, Pred violates) {
    Violations v;
    for (Eigen::Index s = 0; s < dep.map.rows(); ++s)
        for (Eigen::Index t = 0; t < dep.map.cols(); ++t) {
            if (!violates(s, t)) continue;
            if (!v.worst || dep.at(s, t).worseThan(dep.at(v.worst->first, v.worst->second), rule))
                v.worst = {s, t};
            if (dep.map(s, t) &&
                (!v.nearest || std::abs(s - t) < std::abs(v.nearest->first - v.nearest->second)))
                v.nearest = {s, t};
        }
    return v;
}

/// The witness of output s depending on token t: that pair of the dependency map, and how
/// output s moved.
template <class T>
Witness pairWitness(const Dependencies<T>& dep, Eigen::Index s, Eigen::Index t) {
    const RowChange<T>& c = dep.at(s, t);
    return Witness({WitnessCell::Map::Dependency, -1, -1, int(s), int(t)},
                   CellKeys::OutputRowInputToken)
        .with("distance", std::abs(s - t))
        .with("column", c.column)
        .with("before", scalarJson<T>(c.before))
        .with("after_perturbing_token", scalarJson<T>(c.after));
}

/// Settles `report` on the worst violation (nothing moved when there is none, e.g. one token)
/// and, when it fails, names the worst pair and, as the shrunk witness, the nearest.
template <class T>
void reportViolations(ReportBuilder& report, const Violations& v, const Dependencies<T>& dep,
                      long depth) {
    if (!v.worst) {
        RowChange<T>().settleReport(report, 0, 0, depth);
        return;
    }
    const auto [s, t] = *v.worst;
    dep.at(s, t).settleReport(report, s, t, depth);
    if (!report.fails()) return;
    report.witness(pairWitness(dep, s, t));
    if (v.nearest) report.shrunkWitness(pairWitness(dep, v.nearest->first, v.nearest->second));
}

/// Which keys a layer's query may read over n tokens: its mask, or for ssm causal or all.
BoolMatrix keyMask(const LayerSpec& layer, int n);
/// The dependency bound of the layers: the reachability of their key masks.
BoolMatrix boundMap(const Scenario& s);
/// A boolean map as rows of 0 and 1 (the report's details).
nlohmann::json boolRows(const BoolMatrix& m);

} // namespace attnlab
