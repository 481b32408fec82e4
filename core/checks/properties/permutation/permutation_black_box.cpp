// SPDX-License-Identifier: GPL-3.0-or-later
// permutation-equivariance and -invariance of a black box (properties.md §2.1-2.2, §3): f(P_σ X)
// against P_σ f(X) (or their sums over the rows) for seeded σ, all of them when n! is within the
// samples; a failure is shrunk by calling the function again on the first m = 2, 3, ... tokens
// with each transposition of neighbours, one call per m.
#include "core/checks/properties/permutation/equivariance_check.h"

#include "core/base/error.h"
#include "core/checks/check_support.h"

#include <algorithm>
#include <numeric>

namespace attnlab {

namespace {

constexpr long kDefaultSamples = 32;
// The shrinker tries the first m tokens for m up to this many.
constexpr int kShrinkUpTo = 8;
// A permutation written out in a witness at most this long; longer ones are summarised.
constexpr std::size_t kWrittenPermutation = 120;

// The σ tried: every one but the identity when n! - 1 <= samples, else `samples` drawn.
std::vector<Permutation> permutationsTried(int n, long samples, std::uint64_t seed,
                                           bool& exhaustive) {
    long factorial = 1;
    for (int k = 2; k <= n && factorial <= samples + 1; ++k)
        factorial *= k;
    exhaustive = factorial - 1 <= samples;
    std::vector<Permutation> tried;
    if (exhaustive) {
        std::vector<int> images(static_cast<std::size_t>(n));
        std::iota(images.begin(), images.end(), 0);
        while (std::next_permutation(images.begin(), images.end()))
            tried.emplace_back(images);
        return tried;
    }
    for (long i = 0; long(tried.size()) < samples && i < 4 * samples; ++i) {
        Permutation sigma = Permutation::random(n, seed + std::uint64_t(i));
        if (!sigma.isIdentity()) tried.push_back(std::move(sigma));
    }
    return tried;
}

// The permuted sequences, planned once for both properties.
struct PermutedInputs {
    std::vector<Permutation> sigmas;
    std::vector<BlackBoxPlan::Handle> handles;
    BlackBoxPlan::Handle baseline = 0;
    bool exhaustive = false;
};

// Both sides of the comparison: f(P X) and P f(X), or their row sums.
struct Sides {
    Sequence lhs, rhs;
};
Sides sides(const Permutation& sigma, const Sequence& fpx, const Sequence& fx, bool pooled) {
    if (pooled) return {fpx.colwise().sum(), fx.colwise().sum()};
    return {fpx, sigma.applyRows(fx)};
}

// σ as the witness writes it: its images, or for a long one its cycles cut short.
nlohmann::json permutationJson(const Permutation& sigma) {
    std::string cycles = sigma.cycles();
    if (cycles.size() <= kWrittenPermutation) return sigma.images();
    long moved = 0;
    for (int i = 0; i < sigma.size(); ++i)
        moved += sigma(i) != i;
    cycles.resize(kWrittenPermutation);
    return cycles + "… (moves " + std::to_string(moved) + " of " + std::to_string(sigma.size()) +
           " tokens)";
}

Witness sidesWitness(const Sides& s, const Deviation<double>& d, bool pooled) {
    Witness w = pooled ? Witness().with("row", "pooled").with("column", d.col)
                       : Witness({WitnessCell::Map::Output, -1, -1, int(d.row), int(d.col)},
                                 CellKeys::RowColumn);
    return w.with("transformed_then_model", s.lhs(d.row, d.col))
        .with("model_then_transformed", s.rhs(d.row, d.col));
}

class PermutationAnalysis : public BlackBoxAnalysis {
public:
    PermutationAnalysis(std::shared_ptr<PermutedInputs> inputs, bool pooled, std::string name)
        : inputs_(std::move(inputs)), pooled_(pooled), name_(std::move(name)) {}

    PropertyReport report(const BlackBoxPlan& plan, const BlackBoxRequest& request) override {
        const Sequence& fx = plan.output(inputs_->baseline);
        const BlackBoxTolerance& tol = request.tolerance;
        Deviation<double> worst;
        std::size_t worstAt = 0;
        double worstRatio = -1;
        for (std::size_t i = 0; i < inputs_->sigmas.size(); ++i) {
            const Sides s =
                sides(inputs_->sigmas[i], plan.output(inputs_->handles[i]), fx, pooled_);
            const Deviation<double> d = compareMatrices<double>(s.lhs, s.rhs);
            const double ratio = tol.equalityRatio(d);
            if (ratio > worstRatio) {
                worstRatio = ratio;
                worst = d;
                worstAt = i;
            }
        }
        ReportBuilder report(name_);
        tol.settleEquality(report, worst);
        report.checked({{"permutations", inputs_->sigmas.size()},
                        {"exhaustive", inputs_->exhaustive},
                        {"seed", plan.seed()}});
        if (report.fails()) {
            const Permutation& sigma = inputs_->sigmas[worstAt];
            const Sides s = sides(sigma, plan.output(inputs_->handles[worstAt]), fx, pooled_);
            report.witness(
                sidesWitness(s, worst, pooled_).with("permutation", permutationJson(sigma)));
            try {
                report.shrunkWitness(shrink(plan.tokens(), request));
            } catch (const InputError& e) { // e.g. a model whose mask fits only n tokens
                report.checked("shrinking", std::string("stopped: ") + e.what());
            }
        }
        report.explain("f(P X) = P f(X) for every σ tried, up to rounding",
                       "the output does not follow the permutation of the tokens: the program "
                       "reads positions (a positional encoding, a causal or window mask)");
        return std::move(report).build();
    }

private:
    // The first m tokens (m = 2, 3, ...) with the first transposition of neighbours that breaks
    // the property, one call per m. Throws InputError when the function refuses m tokens.
    std::optional<Witness> shrink(const Sequence& x, const BlackBoxRequest& request) const {
        const int upTo = int(std::min<Eigen::Index>(x.rows(), kShrinkUpTo));
        for (int m = 2; m <= upTo; ++m) {
            BlackBoxPlan tries(x.topRows(m), 0);
            const auto base = tries.baseline();
            std::vector<Permutation> swaps;
            std::vector<BlackBoxPlan::Handle> handles;
            for (int i = 0; i + 1 < m; ++i) {
                swaps.push_back(Permutation::transposition(m, i, i + 1));
                handles.push_back(tries.add(swaps.back().applyRows<double>(tries.tokens())));
            }
            tries.evaluate(*request.function, request.cancelled);
            for (std::size_t i = 0; i < swaps.size(); ++i) {
                const Sides s =
                    sides(swaps[i], tries.output(handles[i]), tries.output(base), pooled_);
                const Deviation<double> d = compareMatrices<double>(s.lhs, s.rhs);
                if (d.largest > request.tolerance.equality(d.magnitude))
                    return sidesWitness(s, d, pooled_)
                        .with("n", m)
                        .with("tokens", "the first " + std::to_string(m))
                        .with("transposition", nlohmann::json::array({int(i), int(i) + 1}));
            }
        }
        return std::nullopt;
    }

    std::shared_ptr<PermutedInputs> inputs_;
    bool pooled_;
    std::string name_;
};

class PermutationBlackBox : public BlackBoxProperty {
public:
    explicit PermutationBlackBox(bool pooled) : pooled_(pooled) {}
    std::string name() const override {
        return pooled_ ? "permutation-invariance" : "permutation-equivariance";
    }
    std::vector<CheckParameter> parameters() const override {
        return {{"samples", CheckParameter::Type::Integer, std::to_string(kDefaultSamples),
                 "random σ; all of them when n! - 1 is at most this"}};
    }
    std::optional<std::string> notApplicable(const BlackBoxRequest& request) const override {
        if (request.queries > 0) return "a decode step returns only the last queries' rows";
        return std::nullopt;
    }
    std::unique_ptr<BlackBoxAnalysis> plan(BlackBoxPlan& plan,
                                           const BlackBoxRequest& request) const override {
        long samples = kDefaultSamples;
        if (request.params.contains("samples")) {
            const nlohmann::json& v = request.params["samples"];
            if (!v.is_number_integer() || v.get<long>() < 1 || v.get<long>() > 100000)
                throw InputError(name() + ": samples must be an integer from 1 to 100000");
            samples = v.get<long>();
        }
        // Both properties read the same permuted sequences, planned by whichever comes first
        // (with its samples).
        auto inputs = plan.shared<PermutedInputs>("permutations", [&] {
            auto planned = new PermutedInputs;
            planned->baseline = plan.baseline();
            planned->sigmas = permutationsTried(int(plan.tokens().rows()), samples, plan.seed(),
                                                planned->exhaustive);
            for (const Permutation& sigma : planned->sigmas)
                planned->handles.push_back(plan.add(sigma.applyRows<double>(plan.tokens())));
            return planned;
        });
        return std::make_unique<PermutationAnalysis>(inputs, pooled_, name());
    }

private:
    bool pooled_;
};

} // namespace

std::shared_ptr<const BlackBoxProperty> makePermutationBlackBox(bool pooled) {
    return std::make_shared<PermutationBlackBox>(pooled);
}

} // namespace attnlab
