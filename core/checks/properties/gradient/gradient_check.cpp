// SPDX-License-Identifier: GPL-3.0-or-later
// The `gradient` check: for seeded random (δ, u) it compares the reverse pass Jᵀδ (in the
// scenario's precision) with central finite differences of ⟨f(X), δ⟩ computed in float64, and
// tests ⟨J·u, δ⟩ = ⟨u, Jᵀ·δ⟩ against the forward-mode JVP (exactly in exact mode, where finite
// differences are skipped). Finite differences whose step crosses a ReLU kink are skipped.
#include "core/checks/properties/gradient/gradient_check.h"

#include "core/checks/properties/gradient/gradient_finite_differences.h"

#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/base/random.h"
#include "core/checks/check_support.h"
#include "core/checks/comparison.h"
#include "core/model/backward.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace attnlab {

namespace {

constexpr long kFullEntries = 512; // up to n·d entries (and n ≤ kFullRows): every entry;
constexpr long kFullRows = 128;    // beyond: along random directions only
constexpr double kFloorTol = 1e-5; // relative tolerance floor in float modes

// How many next() calls drawing a matrix of `entries` takes: an integer per entry in exact mode,
// else two uniforms per pair of normals (the last pair's second normal unused).
template <class T>
std::uint64_t drawsFor(Eigen::Index entries) {
    const auto count = std::uint64_t(entries);
    return ScalarOps<T>::exact ? count : 2 * ((count + 1) / 2);
}

template <class T>
Matrix<T> drawMatrix(SplitMix64 rng, Eigen::Index rows, Eigen::Index cols) {
    Matrix<T> m(rows, cols);
    if constexpr (ScalarOps<T>::exact) {
        for (Eigen::Index i = 0; i < m.size(); ++i)
            m(i) = T(rng.integer(-3, 3));
    } else {
        for (Eigen::Index i = 0; i < m.size(); i += 2) {
            const auto [a, b] = rng.normalPair();
            m(i) = ScalarOps<T>::fromDouble(a);
            if (i + 1 < m.size()) m(i + 1) = ScalarOps<T>::fromDouble(b);
        }
    }
    return m;
}

// Matrices of the given shapes drawn one after the other from `rng`, entry by entry, and `rng`
// moved past them. Each starts where the one before ends in the stream, so they are drawn side
// by side on the threads with the numbers of a draw in turn.
template <class T>
std::vector<Matrix<T>>
drawMatrices(const CheckRequest& request, SplitMix64& rng,
             const std::vector<std::pair<Eigen::Index, Eigen::Index>>& shapes) {
    constexpr double kWorkPerEntry = 200; // half a pair of normals (log, sqrt, sin, cos), roughly
    std::vector<Matrix<T>> out(shapes.size());
    std::vector<SplitMix64> starts;
    double entries = 0;
    for (const auto& [rows, cols] : shapes) {
        starts.push_back(rng);
        rng.discard(drawsFor<T>(rows * cols));
        entries += double(rows * cols);
    }
    forEachItem(request, long(shapes.size()), entries * kWorkPerEntry, [&](long i) {
        const auto k = std::size_t(i);
        out[k] = drawMatrix<T>(starts[k], shapes[k].first, shapes[k].second);
    });
    return out;
}

template <class T>
T dot(const Matrix<T>& a, const Matrix<T>& b) {
    T sum = T(0);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        sum += a(i) * b(i);
    return sum;
}

// Σ|a_i|·|b_i|: the scale a rounding error of ⟨a, b⟩ is measured against.
template <class T>
T absDot(const Matrix<T>& a, const Matrix<T>& b) {
    T sum = T(0);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        sum += absolute<T>(a(i)) * absolute<T>(b(i));
    return sum;
}

// The largest relative error found so far and where.
// The samples (δ_s, u_s) and the passes compared on them: the reverse pass under test and the
// JVP in T; in float32 also the real reverse pass and both again in float64, for the rounding
// they carry.
template <class T>
struct Passes {
    static constexpr bool single = std::is_same_v<T, float>;
    const CheckRequest& request;
    const Model<T>& model;
    const Model<double>& reference;
    const Matrix<T>& tokens;
    Eigen::MatrixXd x; // the tokens in float64
    std::vector<Matrix<T>> deltas, dirs;
    std::vector<Eigen::MatrixXd> deltasD, dirsD;
    std::vector<Matrix<T>> grads, tangents, realGrads;
    std::vector<Eigen::MatrixXd> gradsHigh, tangentsHigh;
    double sampleWork = 0; // about what one sample's finite difference costs (two forwards)

    Passes(const CheckRequest& r, const Model<T>& m, const Model<double>& ref, const Matrix<T>& t)
        : request(r), model(m), reference(ref), tokens(t), x(toDoubleMatrix(t)) {}

    std::size_t count() const { return deltas.size(); }

    /// Draws δ_s and u_s for every sample from the request's seed.
    void draw(int samples) {
        const auto n = tokens.rows(), d = tokens.cols();
        SplitMix64 rng(request.seed);
        std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes; // δ_0, u_0, δ_1, u_1, ...
        for (int s = 0; s < samples; ++s) {
            shapes.emplace_back(n, model.outputWidth());
            shapes.emplace_back(n, d);
        }
        std::vector<Matrix<T>> drawn = drawMatrices<T>(request, rng, shapes);
        for (int s = 0; s < samples; ++s) {
            deltas.push_back(std::move(drawn[std::size_t(2 * s)]));
            dirs.push_back(std::move(drawn[std::size_t(2 * s + 1)]));
            deltasD.push_back(toDoubleMatrix(deltas.back()));
            dirsD.push_back(toDoubleMatrix(dirs.back()));
        }
        sampleWork = 2.0 * double(n) * double(n + d) * double(d) *
                     double(std::max<std::size_t>(1, model.layerCount()));
    }

    /// Runs the passes side by side on the threads (each batched over the samples); `substitute`
    /// is the reverse pass under test, or empty for the model's own.
    void run(const VjpFunction<T>& substitute) {
        std::vector<std::function<void()>> passes = {[&] {
                                                         if (!substitute) {
                                                             grads = vjp(model, tokens, deltas);
                                                             return;
                                                         }
                                                         for (const Matrix<T>& delta : deltas) {
                                                             pollCancel(request);
                                                             grads.push_back(
                                                                 substitute(model, tokens, delta));
                                                         }
                                                     },
                                                     [&] { tangents = jvp(model, tokens, dirs); }};
        if constexpr (single) {
            passes.push_back([&] { gradsHigh = vjp(reference, x, deltasD); });
            passes.push_back([&] { tangentsHigh = jvp(reference, x, dirsD); });
            if (substitute) passes.push_back([&] { realGrads = vjp(model, tokens, deltas); });
        }
        // Side by side while there are at least as many passes as threads; with more threads,
        // one after the other, each spreading its samples (a nested loop would run serially).
        const bool sideBySide = long(passes.size()) >= kernels::availableThreads();
        forEachItem(request, long(passes.size()),
                    sideBySide ? 3.0 * sampleWork * double(count() * passes.size()) : 0.0,
                    [&](long i) { passes[std::size_t(i)](); });
        const auto n = tokens.rows(), d = tokens.cols();
        for (const Matrix<T>& g : grads)
            if (g.rows() != n || g.cols() != d)
                throw InputError("gradient: the reverse pass returned a " +
                                 std::to_string(g.rows()) + " x " + std::to_string(g.cols()) +
                                 " matrix, expected " + std::to_string(n) + " x " +
                                 std::to_string(d));
    }
};

// The identity ⟨J·u, δ⟩ = ⟨u, Jᵀ·δ⟩ in T per sample, relative to Σ|J·u|·|δ| and Σ|u|·|Jᵀδ|,
// and the worst sample.
template <class T>
struct Identity {
    std::vector<T> lhsDots, rhsDots, scales, relative;
    T worst = T(0);
    std::optional<Witness> witness;
    nlohmann::json perSample = nlohmann::json::array();

    explicit Identity(const Passes<T>& p) {
        for (std::size_t s = 0; s < p.count(); ++s) {
            lhsDots.push_back(dot(p.tangents[s], p.deltas[s]));
            rhsDots.push_back(dot(p.dirs[s], p.grads[s]));
            scales.push_back(
                std::max<T>(absDot(p.tangents[s], p.deltas[s]), absDot(p.dirs[s], p.grads[s])));
            relative.push_back(
                scales[s] > T(0) ? T(absolute<T>(T(lhsDots[s] - rhsDots[s])) / scales[s]) : T(0));
        }
        for (std::size_t s = 0; s < p.count(); ++s) {
            perSample.push_back({{"jvp_identity", scalarJson<T>(relative[s])}});
            if (!witness || relative[s] > worst) {
                worst = relative[s];
                witness = Witness()
                              .with("against", "forward-mode JVP")
                              .with("sample", s)
                              .with("jvp_dot", scalarJson<T>(lhsDots[s]))
                              .with("vjp_dot", scalarJson<T>(rhsDots[s]));
            }
        }
    }
};

// The accumulation depth behind the float64 tolerance: n + width summed over the layers.
template <class T>
long accumulationDepth(const Model<T>& model, Eigen::Index n, Eigen::Index d) {
    long depth = 0;
    int width = int(d);
    for (std::size_t i = 0; i < model.layerCount(); ++i) {
        depth += long(n) + width;
        const LayerWeights<T>& w = model.weights(i);
        width = int(w.wo ? w.wo->cols() : w.wv.cols());
    }
    return depth;
}

// Exact mode: the identity must hold exactly; finite differences are skipped. Returns the
// witness should it fail.
template <class T>
std::optional<Witness> settleExactly(ReportBuilder& report, const Identity<T>& identity) {
    report
        .checked("finite_differences",
                 "skipped in exact mode: the identity <J u, delta> = <u, J^T delta> against the "
                 "forward-mode JVP is checked exactly instead")
        .settleOn(true, identity.worst, Rational(0),
                  "exact arithmetic: <J u, delta> must equal <u, J^T delta> exactly (relative "
                  "error 0)",
                  identity.worst != T(0));
    return identity.witness;
}

// float32: the rounding of the reverse pass and of the JVP, measured by running the real ones in
// float32 and in float64 (relative to the same scales as the comparisons).
double float32Rounding(const Passes<float>& p, const Identity<float>& identity,
                       bool vjpUnderTestIsReal) {
    const std::vector<Matrix<float>>& lows = vjpUnderTestIsReal ? p.grads : p.realGrads;
    double rounding = 0;
    for (std::size_t s = 0; s < p.count(); ++s) {
        const Eigen::MatrixXd low = toDoubleMatrix(lows[s]);
        const double size = p.gradsHigh[s].cwiseAbs().maxCoeff();
        if (size > 0)
            rounding = std::max(rounding, (low - p.gradsHigh[s]).cwiseAbs().maxCoeff() / size);
        const double lhsHigh = p.tangentsHigh[s].cwiseProduct(p.deltasD[s]).sum();
        const double lhsError = std::abs(double(identity.lhsDots[s]) - lhsHigh);
        const double rhsError = std::abs(p.dirsD[s].cwiseProduct(low - p.gradsHigh[s]).sum());
        if (identity.scales[s] > 0)
            rounding = std::max(rounding, (lhsError + rhsError) / double(identity.scales[s]));
    }
    return rounding;
}

// The float tolerance's rule in words.
std::string floatToleranceRule(bool single, double rounding, double unit, long depth) {
    std::ostringstream rule;
    rule << "relative error |VJP - finite difference| / max|gradient| (per sample) and "
            "|<J u, delta> - <u, J^T delta>| / max(sum|J u||delta|, sum|u||J^T delta|) must "
            "not exceed ";
    if (single)
        rule << "1e-5 + 2 * rho with rho = " << rounding
             << ", the float32 rounding measured by running the real reverse pass and JVP in "
                "float32 and in float64 (largest relative difference)";
    else
        rule << "max(1e-5, 16 * eps * depth) with eps = " << unit
             << " (unit roundoff of float64) and depth = " << depth
             << " (n + width summed over layers)";
    rule << "; 1e-5 covers the error of the finite differences";
    return rule.str();
}

// Float modes: the VJPs against central finite differences in float64 and the identity, against
// a tolerance from the measured float32 rounding or the float64 depth. Returns the witness should
// it fail, and counts in `skipped` the finite differences skipped at ReLU kinks.
template <class T>
std::optional<Witness> settleAgainstFiniteDifferences(ReportBuilder& report, const Passes<T>& p,
                                                      const Identity<T>& identity,
                                                      bool vjpUnderTestIsReal,
                                                      const Scenario& scenario, long& skipped) {
    std::vector<Eigen::MatrixXd> gradsD;
    for (const Matrix<T>& g : p.grads)
        gradsD.push_back(toDoubleMatrix(g));
    gradient::FiniteDifferences fd{p.reference, p.x, p.request};
    for (const LayerSpec& layer : scenario.model.layers)
        fd.kinks = fd.kinks || layer.ffn || layer.mixer.kind == MixerSpec::Kind::SoftmaxLike;
    gradient::Worst worst;
    const auto n = p.tokens.rows(), d = p.tokens.cols();
    const bool everyEntry = n * d <= kFullEntries && n <= kFullRows;
    if (everyEntry)
        fd.everyEntry(p.deltasD, gradsD, worst);
    else
        fd.directions(p.deltasD, p.dirsD, gradsD, p.sampleWork, worst);
    report.checked(
        "finite_differences",
        {{"reference", "central differences of <f(X), delta> in float64, h = 1e-6 * max(1, |x|)"},
         {"mode", everyEntry ? "every token entry"
                             : "along each sample's random direction u (n·d > 512 or n > 128)"},
         {"compared", fd.compared},
         {"skipped_at_relu_kinks", fd.skipped}});
    double rounding = 0;
    if constexpr (Passes<T>::single) {
        rounding = float32Rounding(p, identity, vjpUnderTestIsReal);
        report.checked("float32_rounding", rounding);
    }
    const double unit = std::numeric_limits<T>::epsilon() / 2;
    const long depth = accumulationDepth(p.model, n, d);
    const double tol = Passes<T>::single ? kFloorTol + 2 * rounding
                                         : std::max(kFloorTol, 16 * unit * double(depth));
    const double idWorst = ScalarOps<T>::toDouble(identity.worst);
    const double largest = std::max(worst.error, idWorst);
    report.settleOn(false, largest, tol,
                    floatToleranceRule(Passes<T>::single, rounding, unit, depth),
                    !(largest <= tol));
    skipped = fd.skipped;
    return worst.error > idWorst ? worst.witness : identity.witness;
}

// Why it holds or which comparison fails, and the skipped finite differences.
std::string explanation(const std::optional<Witness>& witness, int samples, bool exact,
                        long skipped) {
    const auto text = [](const nlohmann::json& v) {
        return v.is_string() ? v.get<std::string>() : v.dump();
    };
    std::ostringstream why;
    if (!witness) {
        why << "the reverse pass J^T delta agrees with "
            << (exact ? "the forward-mode JVP exactly"
                      : "central finite differences (float64) and the forward-mode JVP")
            << " on " << samples << " random (delta, u) pairs";
    } else if (witness->has("finite_difference")) {
        const Witness& w = *witness;
        why << "the reverse pass is wrong: for sample " << text(w.value("sample"))
            << " the VJP gives " << text(w.value("vjp")) << " where finite differences give "
            << text(w.value("finite_difference"));
        if (w.cell()) why << " (token " << w.cell()->row << ", column " << w.cell()->column << ")";
    } else {
        const Witness& w = *witness;
        why << "the reverse pass is not the transpose of the forward derivative: for sample "
            << text(w.value("sample")) << ", <J u, delta> = " << text(w.value("jvp_dot"))
            << " (forward mode) but <u, J^T delta> = " << text(w.value("vjp_dot"));
    }
    if (skipped > 0)
        why << "; " << skipped
            << " finite differences were skipped because a ReLU argument changes sign within "
               "the step (f is not differentiable there; the VJP uses relu'(0) = 0)";
    return why.str();
}

class GradientCheck : public TypedCheck<GradientCheck> {
public:
    explicit GradientCheck(VjpOverride vjpUnderTest = {}) : vjp_(std::move(vjpUnderTest)) {}
    std::string name() const override { return "gradient"; }
    /// The check differentiates the model; the passes do not cover every block part yet.
    std::optional<std::string> notApplicable(const Scenario& s) const override {
        return undifferentiablePart(s.model);
    }
    std::vector<CheckParameter> parameters() const override {
        return {{"samples", CheckParameter::Type::Integer, "4", ""}};
    }
    std::string note() const override { return "reports the largest relative error of the VJP"; }

    template <class T>
    PropertyReport evaluateIn(const CheckRequest& request) const {
        constexpr bool exact = ScalarOps<T>::exact;
        const int samples = int(integerParam(request, "samples", 4, 1, 10000));
        const Scenario& scenario = request.scenario;
        const Matrix<T> tokens = scenario.tokens.materialize<T>();
        const Model<T> model(scenario.model, scenario.d());
        const Model<double> reference(scenario.model, scenario.d());
        const VjpFunction<T>& substitute = vjpUnderTest<T>();

        Passes<T> passes(request, model, reference, tokens);
        passes.draw(samples);
        passes.run(substitute);
        const Identity<T> identity(passes);

        ReportBuilder report(name());
        report.checked({{"samples", samples}, {"seed", request.seed}, {"jvp_identity", samples}});
        long skipped = 0;
        std::optional<Witness> witness;
        if constexpr (exact)
            witness = settleExactly(report, identity);
        else
            witness = settleAgainstFiniteDifferences(report, passes, identity, !substitute,
                                                     scenario, skipped);
        if (!report.fails()) witness.reset();
        if (witness) report.witness(*witness);
        return std::move(report.details({{"per_sample", identity.perSample}})
                             .explain(explanation(witness, samples, exact, skipped)))
            .build();
    }

private:
    // The reverse pass under test in T: a substitute, or empty for the model's own.
    template <class T>
    const VjpFunction<T>& vjpUnderTest() const {
        if constexpr (std::is_same_v<T, float>)
            return vjp_.f32;
        else if constexpr (std::is_same_v<T, double>)
            return vjp_.f64;
        else
            return vjp_.exact;
    }

    VjpOverride vjp_;
};

} // namespace

std::unique_ptr<PropertyCheck> makeGradientCheck() {
    return std::make_unique<GradientCheck>();
}

std::unique_ptr<PropertyCheck> makeGradientCheck(VjpOverride vjpUnderTest) {
    return std::make_unique<GradientCheck>(std::move(vjpUnderTest));
}

} // namespace attnlab
