// locality and causality on measured dependencies. Locality reads the dependency map D[s][t]
// ("output s changes when input token t changes", found by perturbing each token with two generic
// vectors; exact in exact mode) and compares it with the bound the layers' masks imply (their
// reachability). Causality perturbs every suffix of the tokens at once, and measures the map only
// to name a witness when an earlier output moves. The forwards spread over the CPU threads.
#include "core/base/precision_dispatch.h"
#include "core/checks/check_factories.h"
#include "core/checks/check_support.h"

namespace attnlab {

namespace {

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
    T tolerance(long depth) const { return attnlab::tolerance<T>(magnitude, depth); }
    bool exceeds(long depth) const { return largest > tolerance(depth); }
    /// Beyond its tolerance where `other` is not, or further beyond (or less within) it.
    bool worseThan(const RowChange& other, long depth) const {
        if (exceeds(depth) != other.exceeds(depth)) return exceeds(depth);
        const T mine = tolerance(depth), theirs = other.tolerance(depth);
        if (mine > T(0) && theirs > T(0)) return largest / mine > other.largest / theirs;
        return largest > other.largest;
    }
    /// Settles `report` on this change at entry (row, col), against this row's tolerance.
    void settleReport(PropertyReport& report, Eigen::Index row, Eigen::Index col,
                      long depth) const {
        Deviation<T> d;
        d.largest = largest;
        d.magnitude = magnitude;
        d.row = row;
        d.col = col;
        settle(report, d, depth);
        if (!report.exact)
            report.toleranceRule +=
                " (largest |value|: of the output row compared, before and after)";
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

// What both sweeps perturb from: the tokens X, f(X), and how large a perturbation is. Where
// the model allows it, f(X) is kept as a record, and each perturbed forward computes only the
// attention blocks its changed rows reach (Model::forwardFrom); the others are the record's.
template <class T>
struct Baseline {
    const CheckSetup<T>& setup;
    const Matrix<T>& x;
    std::optional<ForwardRecord<T>> record;
    Matrix<T> fx;
    T scale = T(1); // max(1, max |X|)

    explicit Baseline(const CheckSetup<T>& s) : setup(s), x(s.tokens) {
        if (setup.model.reusesBlocks()) record = setup.model.record(x);
        fx = record ? record->output : setup.output(x);
        for (Eigen::Index i = 0; i < x.size(); ++i)
            scale = std::max<T>(scale, absolute<T>(x(i)));
    }
    /// The first `rows` rows of f(xp), for xp that differs from X in a few rows.
    Matrix<T> outputRows(const Matrix<T>& xp, Eigen::Index rows) const {
        if (record) return setup.model.forwardFrom(*record, xp, int(rows));
        return rows == x.rows() ? setup.output(xp) : setup.firstRows(xp, rows);
    }
    /// X with tokens [from, to) moved by a generic vector each (the k-th of its kind).
    Matrix<T> perturbed(Eigen::Index from, Eigen::Index to, int k) const {
        Matrix<T> xp = x;
        for (Eigen::Index t = from; t < to; ++t)
            for (Eigen::Index j = 0; j < x.cols(); ++j)
                xp(t, j) += scale * (T(long(3 + 2 * k + j)) / T(long(7 + 5 * t + 3 * j + k)));
        return xp;
    }
};

template <class T>
Dependencies<T> measure(const CheckSetup<T>& setup, const CheckRequest& request) {
    const Baseline<T> base(setup);
    const auto n = base.x.rows();
    Dependencies<T> dep{BoolMatrix::Constant(n, n, false),
                        std::vector<std::vector<RowChange<T>>>(static_cast<std::size_t>(n))};
    // One task per token t, writing changes[t] and column t of the map only.
    setup.forEachForward(request, long(n), [&](long t) {
        std::vector<RowChange<T>>& column = dep.changes[std::size_t(t)];
        column.resize(std::size_t(n));
        for (int k = 0; k < 2; ++k) { // two generic perturbations, so no change cancels by chance
            const Matrix<T> fp = base.outputRows(base.perturbed(t, t + 1, k), n);
            for (Eigen::Index s = 0; s < n; ++s) {
                const RowChange<T> change(base.fx, fp, s);
                if (k == 0 || change.worseThan(column[std::size_t(s)], setup.depth))
                    column[std::size_t(s)] = change;
            }
        }
        for (Eigen::Index s = 0; s < n; ++s)
            dep.map(s, t) = column[std::size_t(s)].exceeds(setup.depth);
    });
    return dep;
}

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
    setup.forEachForward(request, long(n) - 1, [&](long task) {
        const Eigen::Index m = task + 1;
        // Only the rows that must not move are computed.
        const Matrix<T> fp = base.outputRows(base.perturbed(m, n, int(m % 2)), m);
        SuffixSweep<T>& f = found[std::size_t(m)];
        f.boundary = m;
        for (Eigen::Index s = 0; s < m; ++s) {
            // An unmoved row is never worse than the one kept (most rows, when causal).
            if (f.row >= 0 && (fp.row(s).array() == base.fx.row(s).array()).all()) continue;
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

// Which keys a layer's query may read over n tokens: its mask, or for ssm causal or all.
BoolMatrix keyMask(const LayerSpec& layer, int n) {
    if (layer.mixer.kind != MixerSpec::Kind::Ssm) return buildMask(layer.mask, n);
    return buildMask(layer.mixer.bidirectional ? MaskSpec::all() : MaskSpec::causal(), n);
}

// The dependency bound of the layers: the reachability of their key masks.
BoolMatrix boundMap(const Scenario& s) {
    std::vector<BoolMatrix> masks;
    for (const LayerSpec& layer : s.model.layers)
        masks.push_back(keyMask(layer, s.n()));
    return reachability(masks);
}

nlohmann::json boolRows(const BoolMatrix& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            row.push_back(m(i, j) ? 1 : 0);
        rows.push_back(row);
    }
    return rows;
}

// The worst change over the pairs `violates(s, t)` selects, as a report deviation and witness.
template <class T, class Pred>
void reportViolations(PropertyReport& report, const Dependencies<T>& dep, long depth,
                      Pred violates) {
    std::optional<std::pair<Eigen::Index, Eigen::Index>> worst,
        nearest; // nearest: smallest |s - t|
    for (Eigen::Index s = 0; s < dep.map.rows(); ++s)
        for (Eigen::Index t = 0; t < dep.map.cols(); ++t) {
            if (!violates(s, t)) continue;
            if (!worst || dep.at(s, t).worseThan(dep.at(worst->first, worst->second), depth))
                worst = {s, t};
            if (dep.map(s, t) &&
                (!nearest || std::abs(s - t) < std::abs(nearest->first - nearest->second)))
                nearest = {s, t};
        }
    if (!worst) { // nothing could violate (e.g. one token): nothing moved
        RowChange<T>().settleReport(report, 0, 0, depth);
        return;
    }
    dep.at(worst->first, worst->second).settleReport(report, worst->first, worst->second, depth);
    auto witness = [&](Eigen::Index s, Eigen::Index t) {
        const RowChange<T>& c = dep.at(s, t);
        return nlohmann::json{{"output_row", s},
                              {"input_token", t},
                              {"distance", std::abs(s - t)},
                              {"column", c.column},
                              {"before", scalarJson<T>(c.before)},
                              {"after_perturbing_token", scalarJson<T>(c.after)}};
    };
    if (report.verdict == Verdict::Fails) {
        report.witness = witness(worst->first, worst->second);
        if (nearest) report.shrunkWitness = witness(nearest->first, nearest->second);
    }
}

std::string maskSummary(const Scenario& s) {
    std::string text;
    for (std::size_t i = 0; i < s.model.layers.size(); ++i) {
        const LayerSpec& l = s.model.layers[i];
        text += (i ? ", " : "") + std::string("layer ") + std::to_string(i) + ": " +
                (l.mixer.kind == MixerSpec::Kind::Ssm ? l.mixer.describe() : l.mask.describe());
    }
    return text;
}

class LocalityCheck : public TypedCheck<LocalityCheck> {
public:
    LocalityCheck() : TypedCheck({"radius"}) {}
    std::string name() const override { return "locality"; }
    std::string parameters() const override {
        return "radius [the bound the masks imply]; reports the measured radius and the map";
    }
    template <class T>
    PropertyReport runTyped(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const CheckSetup<T> setup(s);
        const BoolMatrix bound = boundMap(s);
        const int boundRadius = dependencyRadius(bound);
        const long radius = integerParam(request, "radius", boundRadius, 0, s.n());
        const Dependencies<T> dep = measure(setup, request);
        const int measured = dependencyRadius(dep.map);
        PropertyReport report;
        report.name = name();
        reportViolations(report, dep, setup.depth,
                         [&](auto si, auto ti) { return std::abs(si - ti) > radius; });
        report.checked = {{"perturbed_tokens", s.n()},
                          {"perturbations_per_token", 2},
                          {"claimed_radius", radius}};
        report.details = {{"measured_radius", measured},
                          {"bound_radius", boundRadius},
                          {"claimed_radius", radius},
                          {"bound_attained", (dep.map == bound).all()},
                          {"within_bound", (dep.map <= bound).all()},
                          {"dependency_map", boolRows(dep.map)},
                          {"bound_map", boolRows(bound)}};
        report.explanation = "measured dependency radius " + std::to_string(measured) +
                             "; the masks bound it by " + std::to_string(boundRadius) +
                             " (radii add through layers: " + maskSummary(s) + ")";
        if (report.verdict == Verdict::Fails)
            report.explanation +=
                "; outputs read tokens further than the claimed radius " + std::to_string(radius);
        return report;
    }
};

class CausalityCheck : public TypedCheck<CausalityCheck> {
public:
    std::string name() const override { return "causality"; }
    std::string parameters() const override { return "(none)"; }
    template <class T>
    PropertyReport runTyped(const CheckRequest& request) const {
        const Scenario& s = request.scenario;
        const CheckSetup<T> setup(s);
        const SuffixSweep<T> sweep = sweepSuffixes(setup, request);
        PropertyReport report;
        report.name = name();
        report.checked = {{"perturbed_suffixes", std::max(0, s.n() - 1)}};
        sweep.moved.settleReport(report, sweep.row, sweep.moved.column, setup.depth);
        if (sweep.row >= 0 && sweep.moved.exceeds(setup.depth)) {
            // Name the pairs: the per-token dependency map, as locality measures it.
            const Dependencies<T> dep = measure(setup, request);
            PropertyReport pairs;
            reportViolations(pairs, dep, setup.depth, [](auto si, auto ti) { return ti > si; });
            report.checked["perturbed_tokens"] = s.n();
            report.details = {{"dependency_map", boolRows(dep.map)},
                              {"bound_map", boolRows(boundMap(s))}};
            if (pairs.verdict == Verdict::Fails) {
                report.witness = pairs.witness;
                report.shrunkWitness = pairs.shrunkWitness;
            } else { // only the perturbed suffix together moves it
                report.witness = {{"output_row", sweep.row},
                                  {"perturbed_tokens_from", sweep.boundary},
                                  {"column", sweep.moved.column},
                                  {"before", scalarJson<T>(sweep.moved.before)},
                                  {"after_perturbing_suffix", scalarJson<T>(sweep.moved.after)}};
            }
        }
        // Blocked entries must carry weight exactly 0 (properties.md §2.4).
        const Trace<T> trace = setup.model.forward(setup.tokens);
        long nonzeroBlocked = 0;
        std::vector<std::string> open;
        for (std::size_t l = 0; l < s.model.layers.size(); ++l) {
            const LayerSpec& layer = s.model.layers[l];
            const bool ssm = layer.mixer.kind == MixerSpec::Kind::Ssm;
            const BoolMatrix mask = keyMask(layer, s.n());
            for (const auto& head : trace.layers[l].heads)
                nonzeroBlocked += (!mask && head.weights.array() != T(0)).count();
            bool future = false;
            for (Eigen::Index i = 0; i < mask.rows(); ++i)
                future = future || mask.row(i).tail(mask.cols() - i - 1).any();
            if (future)
                open.push_back("layer " + std::to_string(l) + " (" +
                               (ssm ? layer.mixer.describe() : layer.mask.describe()) +
                               ") lets a query see later tokens");
        }
        if (nonzeroBlocked > 0) report.verdict = Verdict::Fails;
        report.checked["blocked_weights_nonzero"] = nonzeroBlocked;
        std::string why;
        for (const auto& o : open)
            why += (why.empty() ? "" : "; ") + o;
        if (report.verdict == Verdict::Holds)
            report.explanation =
                why.empty() ? "every layer is causal: output s depends only on tokens t <= s, "
                              "and blocked weights are exactly 0"
                            : "no output depends on a later token on these inputs, although " + why;
        else
            report.explanation = why.empty() ? "an output depends on a later token" : why;
        return report;
    }
};

} // namespace

std::unique_ptr<PropertyCheck> makeLocalityCheck() {
    return std::make_unique<LocalityCheck>();
}
std::unique_ptr<PropertyCheck> makeCausalityCheck() {
    return std::make_unique<CausalityCheck>();
}

} // namespace attnlab
