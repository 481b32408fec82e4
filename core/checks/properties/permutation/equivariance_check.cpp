// SPDX-License-Identifier: GPL-3.0-or-later
// permutation-equivariance: f(P_σ X) = P_σ f(X); permutation-invariance: the same on the pooled
// readout Σ_i f(X)[i]. Checked on the scenario's σ plus seeded samples (all σ when n! is within
// the budget); a failure is shrunk to the fewest tokens, a single transposition and the first
// differing entry.
#include "core/checks/properties/permutation/equivariance_check.h"

#include "core/base/error.h"
#include "core/base/parallel.h"
#include "core/checks/check_support.h"

#include <algorithm>
#include <numeric>

namespace attnlab {

namespace {

template <class T>
class Comparer {
public:
    Comparer(const CheckSetup<T>& setup, bool pooled) : setup_(setup), pooled_(pooled) {}

    /// |f(P X) - P f(X)| for tokens x (fx = f(x) given), with both sides kept for the witness.
    Deviation<T> compare(const Permutation& sigma, const Matrix<T>& x, const Matrix<T>& fx,
                         Matrix<T>* lhs = nullptr, Matrix<T>* rhs = nullptr) const {
        return compareOutputs(sigma, setup_.output(sigma.applyRows(x)), fx, lhs, rhs);
    }
    /// As compare, with f(P X) given.
    Deviation<T> compareOutputs(const Permutation& sigma, Matrix<T> a, const Matrix<T>& fx,
                                Matrix<T>* lhs = nullptr, Matrix<T>* rhs = nullptr) const {
        Matrix<T> b = sigma.applyRows(fx);
        if (pooled_) {
            a = a.colwise().sum().eval();
            b = fx.colwise().sum().eval();
        }
        if (lhs) *lhs = a;
        if (rhs) *rhs = b;
        return compareMatrices<T>(a, b);
    }
    bool fails(const Deviation<T>& d) const {
        return d.largest > tolerance<T>(d.magnitude, setup_.depth);
    }
    Matrix<T> output(const Matrix<T>& x) const { return setup_.output(x); }

private:
    const CheckSetup<T>& setup_;
    bool pooled_;
};

// n! when it is at most `cap`, else cap + 1.
long cappedFactorial(int n, long cap) {
    long f = 1;
    for (int k = 2; k <= n; ++k) {
        f *= k;
        if (f > cap) return cap + 1;
    }
    return f;
}

// How many transpositions the shrinker tries on one set of tokens (each is one forward): every
// pair of 10 tokens, the nearest pairs of more.
constexpr int kTranspositionsTried = 45;
// Up to kShrinkTokensUpTo tokens the shrinker drops single tokens greedily; of more it drops runs
// of them: halves, quarters, ... (at most kRunsTried sets of tokens, kRunTranspositions nearest
// pairs on each), a few forwards each.
constexpr int kRunsTried = 24, kRunTranspositions = 4;

// The first transposition (nearest pairs first, at most `tries`) that breaks the property on x,
// if any; `known` is f(x) when already computed.
template <class T>
std::optional<Permutation>
failingTransposition(const Comparer<T>& c, const Matrix<T>& x, const CheckRequest& request,
                     int tries = kTranspositionsTried, const Matrix<T>* known = nullptr) {
    const int m = static_cast<int>(x.rows());
    Matrix<T> fx;
    try {
        fx = known ? *known : c.output(x);
    } catch (const InputError&) {
        return std::nullopt; // the model does not apply to this many tokens (e.g. custom mask)
    }
    int tried = 0;
    for (int gap = 1; gap < m; ++gap)
        for (int i = 0; i + gap < m && tried < tries; ++i, ++tried) {
            pollCancel(request);
            const Permutation tau = Permutation::transposition(m, i, i + gap);
            if (c.fails(c.compare(tau, x, fx))) return tau;
        }
    return std::nullopt;
}

// `keep` without its entries [at, at + count).
std::vector<int> without(const std::vector<int>& keep, std::size_t at, std::size_t count) {
    std::vector<int> fewer(keep.begin(), keep.begin() + long(at));
    fewer.insert(fewer.end(), keep.begin() + long(std::min(keep.size(), at + count)), keep.end());
    return fewer;
}

// Drops runs of tokens from `keep` while some transposition (`tau`) still fails on the rest: first
// all but its first two (where positions or a mask break the property, two tokens show it), then
// halves, quarters, ... (the run length halves when none can go), until two tokens remain or
// kRunsTried sets were tried. Leaves `keep` and `tau` as they are when no set fails.
template <class T>
void dropRuns(const Comparer<T>& c, const Matrix<T>& tokens, const CheckRequest& request,
              std::vector<int>& keep, std::optional<Permutation>& tau) {
    const std::vector<int> two = {keep[0], keep[1]};
    if (auto t = failingTransposition(c, rowsOf(tokens, two), request, 1)) {
        keep = two;
        tau = t;
        return;
    }
    int tried = 1;
    const auto going = [&] { return keep.size() > 2 && tried < kRunsTried; };
    for (std::size_t chunk = keep.size() / 2; chunk >= 1 && going();) {
        bool removed = false;
        for (std::size_t at = 0; at < keep.size() && going(); ++tried) {
            std::vector<int> fewer = without(keep, at, chunk);
            if (auto t =
                    failingTransposition(c, rowsOf(tokens, fewer), request, kRunTranspositions)) {
                keep = std::move(fewer);
                tau = t;
                removed = true; // the next run has moved to `at`
            } else {
                at += chunk;
            }
        }
        chunk = removed ? std::min(chunk, keep.size() / 2) : chunk / 2;
    }
}

// The witness of σ at the entry (row, column) where P f(X) and f(P X) differ: on the output map,
// except for the pooled readout, which has no row.
template <class T>
Witness permutationWitness(const Permutation& sigma, Eigen::Index row, Eigen::Index column,
                           const Matrix<T>& lhs, const Matrix<T>& rhs, bool pooled) {
    Witness w = pooled ? Witness().with("row", "pooled").with("column", column)
                       : Witness({WitnessCell::Map::Output, -1, -1, int(row), int(column)},
                                 CellKeys::RowColumn);
    w.with("permutation", sigma.images())
        .with("transformed_then_model", scalarJson<T>(lhs(row, column)))
        .with("model_then_transformed", scalarJson<T>(rhs(row, column)));
    return w;
}

// The failure shrunk to a single transposition, on as few tokens as it finds (fx = f(tokens)).
template <class T>
std::optional<Witness> shrink(const Comparer<T>& c, const Matrix<T>& tokens, const Matrix<T>& fx,
                              const CheckRequest& request, bool pooled) {
    std::vector<int> keep(static_cast<std::size_t>(tokens.rows()));
    std::iota(keep.begin(), keep.end(), 0);
    std::optional<Permutation> tau;
    if (long(keep.size()) > kShrinkTokensUpTo) dropRuns(c, tokens, request, keep, tau);
    if (!tau) tau = failingTransposition(c, tokens, request, kTranspositionsTried, &fx);
    if (!tau) return {}; // only a longer cycle breaks it: nothing smaller to show
    if (tokens.rows() <= kShrinkTokensUpTo) { // drop single tokens while a transposition fails
        for (bool removed = true; removed && keep.size() > 2;) {
            removed = false;
            for (std::size_t k = 0; k < keep.size(); ++k) {
                std::vector<int> fewer = without(keep, k, 1);
                if (auto t = failingTransposition(c, rowsOf(tokens, fewer), request)) {
                    keep = std::move(fewer);
                    tau = t;
                    removed = true;
                    break;
                }
            }
        }
    }
    const Matrix<T> x = rowsOf(tokens, keep);
    Matrix<T> lhs, rhs;
    const Deviation<T> d = c.compare(
        *tau, x, keep.size() == std::size_t(tokens.rows()) ? fx : c.output(x), &lhs, &rhs);
    // The first differing entry in reading order.
    for (Eigen::Index i = 0; i < lhs.rows(); ++i)
        for (Eigen::Index j = 0; j < lhs.cols(); ++j)
            if (absolute<T>(lhs(i, j) - rhs(i, j)) > tolerance<T>(d.magnitude, 1)) {
                std::vector<int> swapped;
                for (int k = 0; k < tau->size(); ++k)
                    if ((*tau)(k) != k) swapped.push_back(k);
                return permutationWitness(*tau, i, j, lhs, rhs, pooled)
                    .with("tokens", keep)
                    .with("n", keep.size())
                    .with("transposition", swapped);
            }
    return {};
}

// The σ to check: the scenario's own, then every non-identity σ when n! <= samples, else
// `samples` drawn from the seed.
std::vector<Permutation> permutationsToCheck(const Scenario& s, long samples, std::uint64_t seed) {
    const int n = s.n();
    std::vector<Permutation> sigmas;
    if (s.permutation.isSet()) sigmas.push_back(s.permutation.resolve(n));
    if (cappedFactorial(n, samples) <= samples) {
        std::vector<int> images(static_cast<std::size_t>(n));
        std::iota(images.begin(), images.end(), 0);
        while (std::next_permutation(images.begin(), images.end()))
            sigmas.emplace_back(images);
    } else {
        for (long k = 0; k < samples; ++k)
            sigmas.push_back(Permutation::random(n, seed * 1000003ULL + std::uint64_t(k)));
    }
    return sigmas;
}

class EquivarianceCheck : public TypedCheck<EquivarianceCheck> {
public:
    explicit EquivarianceCheck(bool pooled) : pooled_(pooled) {}
    std::string name() const override {
        return pooled_ ? "permutation-invariance" : "permutation-equivariance";
    }
    std::vector<CheckParameter> parameters() const override {
        return {{"samples", CheckParameter::Type::Integer, "32",
                 "random σ besides the scenario's own; exhaustive when n! <= samples"}};
    }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const long samples = integerParam(request, "samples", 32, 0, 100000);
        const CheckSetup<T> setup(request);
        const Comparer<T> c(setup, pooled_);
        const int n = s.n();
        const Matrix<T> fx = setup.output(setup.tokens);

        const bool exhaustive = cappedFactorial(n, samples) <= samples;
        const std::vector<Permutation> sigmas = permutationsToCheck(s, samples, request.seed);

        // f(X) once (above), then one forward per σ, in rounds of as many σ as there are
        // threads (on a device: one batch of up to 2^17 token rows), merged in order. The checking
        // stops at the first σ after which the merged deviation fails: the report covers the σ up
        // to it, whatever the round.
        Deviation<T> worst;
        std::size_t checked = 0, worstAt = 0;
        Matrix<T> lhs, rhs; // of the worst σ so far
        const std::size_t round = setup.sweepRound();
        std::vector<Deviation<T>> d(round);
        std::vector<Matrix<T>> a(round), b(round);
        while (checked < sigmas.size() && !c.fails(worst)) {
            const std::size_t count = std::min(round, sigmas.size() - checked);
            std::vector<Matrix<T>> permuted;
            for (std::size_t k = 0; k < count; ++k)
                permuted.push_back(sigmas[checked + k].applyRows(setup.tokens));
            std::vector<Matrix<T>> outputs = setup.outputs(request, permuted);
            for (std::size_t k = 0; k < count; ++k)
                d[k] =
                    c.compareOutputs(sigmas[checked + k], std::move(outputs[k]), fx, &a[k], &b[k]);
            for (std::size_t k = 0; k < count && !c.fails(worst); ++k, ++checked) {
                if (checked == 0 || d[k].largest > worst.largest) {
                    worstAt = checked;
                    lhs = std::move(a[k]);
                    rhs = std::move(b[k]);
                }
                worst.merge(d[k]);
            }
        }
        ReportBuilder report(name());
        report
            .checked({{"permutations", checked},
                      {"planned", sigmas.size()},
                      {"exhaustive", exhaustive},
                      {"includes_scenario_permutation", s.permutation.isSet()},
                      {"seed", request.seed}})
            .settle(worst, setup.depth);
        const std::string breakers = equivarianceBreakers(s);
        if (!report.fails()) {
            std::string why = sigmas.empty() ? "n = 1: the only permutation is the identity"
                                             : "f(P X) = P f(X) for every permutation checked";
            if (!breakers.empty()) why += " on these inputs, although in general: " + breakers;
            return std::move(report.explain(why)).build();
        }
        const Permutation& worstSigma = sigmas[worstAt];
        const Deviation<T> at = compareMatrices<T>(lhs, rhs);
        return std::move(
                   report
                       .witness(permutationWitness(worstSigma, at.row, at.col, lhs, rhs, pooled_)
                                    .with("cycles", worstSigma.cycles()))
                       .shrunkWitness(shrink(c, setup.tokens, fx, request, pooled_))
                       .explain(breakers.empty() ? "f(P X) differs from P f(X)" : breakers))
            .build();
    }

private:
    bool pooled_;
};

} // namespace

std::unique_ptr<PropertyCheck> makeEquivarianceCheck(bool pooled) {
    return std::make_unique<EquivarianceCheck>(pooled);
}

} // namespace attnlab
