// locality and causality, both read off the measured dependency map D[s][t] ("output s changes
// when input token t changes", found by perturbing each token with two generic vectors; exact in
// exact mode) and compared with the bound the layers' masks imply (their reachability).
#include "checks/check_factories.h"
#include "checks/check_support.h"
#include "precision_dispatch.h"

namespace attnlab {

namespace {

template <class T>
struct Dependencies {
    BoolMatrix map;          // D[s][t]
    Matrix<T> change;        // largest |Δ f(X)[s]| when token t changes
    Eigen::MatrixXi column;  // where that change was largest
    Matrix<T> before, after; // values at that entry
    Deviation<T> overall;    // magnitudes, for the tolerance
};

template <class T>
Dependencies<T> measure(const CheckSetup<T>& setup, const CheckRequest& request) {
    const Matrix<T>& x = setup.tokens;
    const auto n = x.rows(), d = x.cols();
    const Matrix<T> fx = setup.output(x);
    const auto w = fx.cols();
    T scale = T(1);
    for (Eigen::Index i = 0; i < x.size(); ++i)
        scale = std::max<T>(scale, absolute<T>(x(i)));
    Dependencies<T> dep{BoolMatrix::Constant(n, n, false),
                        Matrix<T>::Zero(n, n),
                        Eigen::MatrixXi::Zero(n, n),
                        Matrix<T>::Zero(n, n),
                        Matrix<T>::Zero(n, n),
                        {}};
    std::vector<Matrix<T>> outputs;
    for (Eigen::Index t = 0; t < n; ++t) {
        for (int k = 0; k < 2; ++k) { // two generic perturbations, so no change cancels by chance
            pollCancel(request);
            Matrix<T> xp = x;
            for (Eigen::Index j = 0; j < d; ++j)
                xp(t, j) += scale * ScalarOps<T>::fromRational(
                                        Rational(long(3 + 2 * k + j), long(7 + 5 * t + 3 * j + k)));
            const Matrix<T> fp = setup.output(xp);
            dep.overall.merge(compareMatrices<T>(fp, fx));
            for (Eigen::Index s = 0; s < n; ++s)
                for (Eigen::Index c = 0; c < w; ++c) {
                    const T delta = absolute<T>(fp(s, c) - fx(s, c));
                    if (delta > dep.change(s, t)) {
                        dep.change(s, t) = delta;
                        dep.column(s, t) = int(c);
                        dep.before(s, t) = fx(s, c);
                        dep.after(s, t) = fp(s, c);
                    }
                }
        }
    }
    const T tol = tolerance<T>(dep.overall.magnitude, setup.depth);
    dep.map = dep.change.array() > tol;
    return dep;
}

// The dependency bound of the layers: the reachability of their key masks (ssm: causal or all).
BoolMatrix boundMap(const Scenario& s) {
    std::vector<BoolMatrix> masks;
    const int n = s.n();
    for (const LayerSpec& layer : s.model.layers) {
        if (layer.mixer.kind == MixerSpec::Kind::Ssm)
            masks.push_back(
                buildMask(layer.mixer.bidirectional ? MaskSpec::all() : MaskSpec::causal(), n));
        else
            masks.push_back(buildMask(layer.mask, n));
    }
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

// The largest change over the pairs `violates(s, t)` selects, as a report deviation and witness.
template <class T, class Pred>
void reportViolations(PropertyReport& report, const Dependencies<T>& dep, long depth,
                      Pred violates) {
    Deviation<T> worst;
    worst.magnitude = dep.overall.magnitude;
    std::optional<std::pair<Eigen::Index, Eigen::Index>> nearest; // smallest |s - t| violation
    for (Eigen::Index s = 0; s < dep.map.rows(); ++s)
        for (Eigen::Index t = 0; t < dep.map.cols(); ++t) {
            if (!violates(s, t)) continue;
            if (worst.row < 0 || dep.change(s, t) > worst.largest) {
                worst.largest = dep.change(s, t);
                worst.row = s;
                worst.col = t;
            }
            if (dep.map(s, t) &&
                (!nearest || std::abs(s - t) < std::abs(nearest->first - nearest->second)))
                nearest = {s, t};
        }
    settle(report, worst, depth);
    auto witness = [&](Eigen::Index s, Eigen::Index t) {
        return nlohmann::json{{"output_row", s},
                              {"input_token", t},
                              {"distance", std::abs(s - t)},
                              {"column", dep.column(s, t)},
                              {"before", scalarJson<T>(dep.before(s, t))},
                              {"after_perturbing_token", scalarJson<T>(dep.after(s, t))}};
    };
    if (report.verdict == Verdict::Fails) {
        report.witness = witness(worst.row, worst.col);
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

class LocalityCheck : public PropertyCheck {
public:
    std::string name() const override { return "locality"; }
    std::string parameters() const override {
        return "radius [the bound the masks imply]; reports the measured radius and the map";
    }
    PropertyReport run(const CheckRequest& request) const override {
        expectParams(request, {"radius"});
        return withScalar(request.scenario.precision, [&]<class T>() {
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
                report.explanation += "; outputs read tokens further than the claimed radius " +
                                      std::to_string(radius);
            return report;
        });
    }
};

class CausalityCheck : public PropertyCheck {
public:
    std::string name() const override { return "causality"; }
    std::string parameters() const override { return "(none)"; }
    PropertyReport run(const CheckRequest& request) const override {
        expectParams(request, {});
        return withScalar(request.scenario.precision, [&]<class T>() {
            const Scenario& s = request.scenario;
            const CheckSetup<T> setup(s);
            const Dependencies<T> dep = measure(setup, request);
            PropertyReport report;
            report.name = name();
            reportViolations(report, dep, setup.depth, [](auto si, auto ti) { return ti > si; });
            // Blocked entries must carry weight exactly 0 (properties.md §2.4).
            const Trace<T> trace = setup.model.forward(setup.tokens);
            long nonzeroBlocked = 0;
            std::vector<std::string> open;
            for (std::size_t l = 0; l < s.model.layers.size(); ++l) {
                const LayerSpec& layer = s.model.layers[l];
                const bool ssm = layer.mixer.kind == MixerSpec::Kind::Ssm;
                const BoolMatrix mask =
                    ssm ? buildMask(layer.mixer.bidirectional ? MaskSpec::all()
                                                              : MaskSpec::causal(),
                                    s.n())
                        : buildMask(layer.mask, s.n());
                for (const auto& head : trace.layers[l].heads)
                    for (Eigen::Index i = 0; i < mask.rows(); ++i)
                        for (Eigen::Index j = 0; j < mask.cols(); ++j)
                            if (!mask(i, j) && head.weights(i, j) != T(0)) ++nonzeroBlocked;
                bool future = false;
                for (Eigen::Index i = 0; i < mask.rows(); ++i)
                    future = future || mask.row(i).tail(mask.cols() - i - 1).any();
                if (future)
                    open.push_back("layer " + std::to_string(l) + " (" +
                                   (ssm ? layer.mixer.describe() : layer.mask.describe()) +
                                   ") lets a query see later tokens");
            }
            if (nonzeroBlocked > 0) report.verdict = Verdict::Fails;
            report.checked = {{"perturbed_tokens", s.n()},
                              {"blocked_weights_nonzero", nonzeroBlocked}};
            report.details = {{"dependency_map", boolRows(dep.map)}};
            std::string why;
            for (const auto& o : open)
                why += (why.empty() ? "" : "; ") + o;
            if (report.verdict == Verdict::Holds)
                report.explanation =
                    why.empty()
                        ? "every layer is causal: output s depends only on tokens t <= s, "
                          "and blocked weights are exactly 0"
                        : "no output depends on a later token on these inputs, although " + why;
            else
                report.explanation = why.empty() ? "an output depends on a later token" : why;
            return report;
        });
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
