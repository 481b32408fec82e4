// SPDX-License-Identifier: GPL-3.0-or-later
// causality by its definition (properties.md §3.4): every suffix of the tokens is perturbed at
// once and no earlier output may move; when one moves, the per-token dependency map is measured
// to name the witness pair. Blocked entries must carry weight exactly 0.
#include "core/checks/properties/causality/causality_check.h"

#include "core/checks/layer_causes.h"
#include "core/checks/properties/shared/dependency_measurement.h"

namespace attnlab {

namespace {

// Causality by its definition (properties.md §3.4): for every boundary m = 1..n-1 the tokens
// t >= m are perturbed together, and no output s < m may move. n - 1 forwards instead of the
// map's 2n, which it needs only to name a witness pair once this finds a violation.
template <class T>
struct SuffixSweep {
    RowChange<T> moved;         // the worst change of an output s < m, over every m
    Eigen::Index row = -1;      // that s
    Eigen::Index boundary = -1; // that m
};

template <class T>
SuffixSweep<T> sweepSuffixes(const CheckSetup<T>& setup, const CheckRequest& request) {
    const Baseline<T> base(setup);
    const auto n = base.x.rows();
    std::vector<SuffixSweep<T>> found(static_cast<std::size_t>(n)); // per boundary m
    // Only the rows that must not move are computed (on the CPU).
    base.sweep(
        request, long(n) - 1,
        [&](long task) {
            const Eigen::Index m = task + 1;
            Perturbations<T> suffix;
            suffix.emplace_back(base.perturbed(m, n, int(m % 2)), m);
            return suffix;
        },
        [&](long task, const std::vector<Matrix<T>>& outputs) {
            const Eigen::Index m = task + 1;
            const Matrix<T>& fp = outputs.front();
            SuffixSweep<T>& f = found[std::size_t(m)];
            f.boundary = m;
            const auto moved = base.movedRows(fp);
            for (Eigen::Index s = 0; s < m; ++s) {
                // An unmoved row is never worse than the one kept (most rows, when causal).
                if (f.row >= 0 && !moved(s)) continue;
                const RowChange<T> change(base.fx, fp, s);
                if (f.row < 0 || change.worseThan(f.moved, setup.depth)) {
                    f.moved = change;
                    f.row = s;
                }
            }
        });
    SuffixSweep<T> sweep;
    for (Eigen::Index m = 1; m < n; ++m) {
        const SuffixSweep<T>& f = found[std::size_t(m)];
        if (sweep.row < 0 || f.moved.worseThan(sweep.moved, setup.depth)) sweep = f;
    }
    return sweep;
}

// What the layers' weights say: how many blocked entries carry weight, and which layers let a
// query see later tokens (properties.md §2.4).
struct BlockedWeights {
    long nonzero = 0;
    LayerCauses open;
};

std::string seesLaterTokens(const std::string& layers, bool several, const std::string& what) {
    return several ? "layers " + layers + " (" + what + ") let a query see later tokens"
                   : "layer " + layers + " (" + what + ") lets a query see later tokens";
}

template <class T>
BlockedWeights blockedWeights(const CheckSetup<T>& setup, const Scenario& s) {
    const Trace<T> trace = setup.model.forward(setup.tokens);
    BlockedWeights found;
    for (std::size_t l = 0; l < s.model.layers.size(); ++l) {
        const LayerSpec& layer = s.model.layers[l];
        const bool ssm = layer.mixer.kind == MixerSpec::Kind::Ssm;
        const BoolMatrix mask = keyMask(layer, s.n());
        for (const auto& head : trace.layers[l].heads)
            found.nonzero += (!mask && head.weights.array() != T(0)).count();
        bool future = false;
        for (Eigen::Index i = 0; i < mask.rows(); ++i)
            future = future || mask.row(i).tail(mask.cols() - i - 1).any();
        if (future)
            found.open.addLayer(l, ssm ? layer.mixer.describe() : layer.mask.describe(),
                                seesLaterTokens);
    }
    return found;
}

// When an earlier output moved: the per-token dependency map, as locality measures it, names the
// pair; when no single token moves it, the perturbed suffix together is the witness.
template <class T>
void nameWitness(ReportBuilder& report, const CheckSetup<T>& setup, const CheckRequest& request,
                 const SuffixSweep<T>& sweep) {
    const Scenario& s = request.scenario;
    const Dependencies<T> dep = measureDependencies(setup, request);
    const Violations v = findViolations(dep, setup.depth, [](auto si, auto ti) { return ti > si; });
    report.checked("perturbed_tokens", s.n())
        .details({{"dependency_map", boolRows(dep.map)}, {"bound_map", boolRows(boundMap(s))}});
    if (v.worst && dep.at(v.worst->first, v.worst->second).exceeds(setup.depth)) {
        report.witness(pairWitness(dep, v.worst->first, v.worst->second));
        if (v.nearest) report.shrunkWitness(pairWitness(dep, v.nearest->first, v.nearest->second));
        return;
    }
    report.witness(Witness()
                       .with("output_row", sweep.row)
                       .with("perturbed_tokens_from", sweep.boundary)
                       .with("column", sweep.moved.column)
                       .with("before", scalarJson<T>(sweep.moved.before))
                       .with("after_perturbing_suffix", scalarJson<T>(sweep.moved.after)));
}

class CausalityCheck : public TypedCheck<CausalityCheck> {
public:
    std::string name() const override { return "causality"; }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const CheckSetup<T> setup(request);
        const SuffixSweep<T> sweep = sweepSuffixes(setup, request);
        ReportBuilder report(name());
        report.checked({{"perturbed_suffixes", std::max(0, s.n() - 1)}});
        sweep.moved.settleReport(report, sweep.row, sweep.moved.column, setup.depth);
        if (sweep.row >= 0 && sweep.moved.exceeds(setup.depth))
            nameWitness(report, setup, request, sweep);
        const BlockedWeights blocked = blockedWeights(setup, s);
        if (blocked.nonzero > 0) report.fail();
        report.checked("blocked_weights_nonzero", blocked.nonzero);
        const std::string why = blocked.open.joined();
        if (report.fails())
            report.explain(why.empty() ? "an output depends on a later token" : why);
        else
            report.explain(why.empty()
                               ? "every layer is causal: output s depends only on tokens t <= s, "
                                 "and blocked weights are exactly 0"
                               : "no output depends on a later token on these inputs, although " +
                                     why);
        return std::move(report).build();
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeCausalityCheck() {
    return std::make_unique<CausalityCheck>();
}

} // namespace attnlab
