// The `gradient` check: for seeded random (δ, u) it compares the reverse pass Jᵀδ (in the
// scenario's precision) with central finite differences of ⟨f(X), δ⟩ computed in float64, and
// tests ⟨J·u, δ⟩ = ⟨u, Jᵀ·δ⟩ against the forward-mode JVP (exactly in exact mode, where finite
// differences are skipped). Finite differences whose step crosses a ReLU kink are skipped.
#include "core/checks/gradient_check.h"

#include "core/base/error.h"
#include "core/base/precision_dispatch.h"
#include "core/base/random.h"
#include "core/checks/check_factories.h"
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
constexpr double kStep = 1e-6;     // h = kStep·max(1, |x|)
constexpr double kFloorTol = 1e-5; // relative tolerance floor in float modes

// How many next() calls drawing one entry takes: an integer in exact mode, else a normal.
template <class T>
constexpr std::uint64_t kDrawsPerEntry = ScalarOps<T>::exact ? 1 : 2;

template <class T>
Matrix<T> drawMatrix(SplitMix64 rng, Eigen::Index rows, Eigen::Index cols) {
    Matrix<T> m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        if constexpr (ScalarOps<T>::exact)
            m(i) = T(rng.integer(-3, 3));
        else
            m(i) = ScalarOps<T>::fromDouble(rng.normal());
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
    constexpr double kWorkPerEntry = 400; // a normal (log, sqrt, cos) in multiply-adds, roughly
    std::vector<Matrix<T>> out(shapes.size());
    std::vector<SplitMix64> starts;
    double entries = 0;
    for (const auto& [rows, cols] : shapes) {
        starts.push_back(rng);
        rng.discard(std::uint64_t(rows * cols) * kDrawsPerEntry<T>);
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
struct Worst {
    double error = 0;
    nlohmann::json witness;
    void offer(double e, nlohmann::json where) {
        if (witness.is_null() || e > error) {
            error = e;
            witness = std::move(where);
        }
    }
};

// Central finite differences in float64 of ⟨f(X), δ_s⟩ for every sample, entry by entry (or
// along u_s for large inputs). Fills `worst` with the comparison against the VJPs `grads`.
struct FiniteDifferences {
    const Model<double>& model;
    const Eigen::MatrixXd& x;
    const CheckRequest& request;
    bool kinks = false; // whether the model has ReLU-type arguments at all
    long compared = 0, skipped = 0;

    std::vector<bool> pattern(const Eigen::MatrixXd& at) const {
        return kinks ? activationPattern(model, at) : std::vector<bool>{};
    }

    Eigen::MatrixXd value(const Eigen::MatrixXd& at) const {
        return model.forward(at, Maps::Drop).output;
    }

    void everyEntry(const std::vector<Eigen::MatrixXd>& deltas,
                    const std::vector<Eigen::MatrixXd>& grads, Worst& worst) {
        const std::vector<bool> atX = pattern(x);
        const auto samples = deltas.size();
        std::vector<Eigen::MatrixXd> fd(samples, Eigen::MatrixXd::Zero(x.rows(), x.cols()));
        BoolMatrix used = BoolMatrix::Constant(x.rows(), x.cols(), false);
        for (Eigen::Index r = 0; r < x.rows(); ++r)
            for (Eigen::Index c = 0; c < x.cols(); ++c) {
                pollCancel(request);
                Eigen::MatrixXd plus = x, minus = x;
                const double h = kStep * std::max(1.0, std::abs(x(r, c)));
                plus(r, c) += h;
                minus(r, c) -= h;
                if (pattern(plus) != atX || pattern(minus) != atX) {
                    ++skipped;
                    continue;
                }
                const Eigen::MatrixXd slope =
                    (value(plus) - value(minus)) / (plus(r, c) - minus(r, c));
                for (std::size_t s = 0; s < samples; ++s)
                    fd[s](r, c) = slope.cwiseProduct(deltas[s]).sum();
                used(r, c) = true;
                ++compared;
            }
        for (std::size_t s = 0; s < samples; ++s) {
            double scale = grads[s].cwiseAbs().maxCoeff();
            for (Eigen::Index i = 0; i < x.size(); ++i)
                if (used(i)) scale = std::max(scale, std::abs(fd[s](i)));
            for (Eigen::Index r = 0; r < x.rows(); ++r)
                for (Eigen::Index c = 0; c < x.cols(); ++c) {
                    if (!used(r, c)) continue;
                    const double diff = std::abs(grads[s](r, c) - fd[s](r, c));
                    worst.offer(scale > 0 ? diff / scale : 0.0,
                                {{"against", "finite differences"},
                                 {"sample", s},
                                 {"row", r},
                                 {"column", c},
                                 {"vjp", grads[s](r, c)},
                                 {"finite_difference", fd[s](r, c)}});
                }
        }
    }

    void directions(const std::vector<Eigen::MatrixXd>& deltas,
                    const std::vector<Eigen::MatrixXd>& dirs,
                    const std::vector<Eigen::MatrixXd>& grads, double sampleWork, Worst& worst) {
        const std::vector<bool> atX = pattern(x);
        struct Sample {
            bool compared = false, skipped = false;
            double fd = 0, viaVjp = 0, scale = 0;
        };
        std::vector<Sample> found(deltas.size());
        forEachItem(request, long(deltas.size()), sampleWork * double(deltas.size()), [&](long i) {
            const auto s = std::size_t(i);
            const double size = dirs[s].cwiseAbs().maxCoeff();
            if (size == 0) return;
            const double t = kStep * std::max(1.0, x.cwiseAbs().maxCoeff()) / size;
            const Eigen::MatrixXd plus = x + t * dirs[s], minus = x - t * dirs[s];
            if (pattern(plus) != atX || pattern(minus) != atX) {
                found[s].skipped = true;
                return;
            }
            found[s].compared = true;
            found[s].fd = (value(plus) - value(minus)).cwiseProduct(deltas[s]).sum() / (2 * t);
            found[s].viaVjp = dirs[s].cwiseProduct(grads[s]).sum();
            found[s].scale = std::max(dirs[s].cwiseAbs().cwiseProduct(grads[s].cwiseAbs()).sum(),
                                      std::abs(found[s].fd));
        });
        for (std::size_t s = 0; s < found.size(); ++s) {
            const Sample& f = found[s];
            skipped += f.skipped;
            if (!f.compared) continue;
            worst.offer(f.scale > 0 ? std::abs(f.fd - f.viaVjp) / f.scale : 0.0,
                        {{"against", "finite differences"},
                         {"sample", s},
                         {"direction", "u of this sample"},
                         {"vjp", f.viaVjp},
                         {"finite_difference", f.fd}});
            ++compared;
        }
    }
};

} // namespace

template <class T>
PropertyReport GradientCheck::runIn(const CheckRequest& request, int samples) const {
    constexpr bool exact = ScalarOps<T>::exact;
    const Scenario& scenario = request.scenario;
    const Matrix<T> tokens = scenario.tokens.materialize<T>();
    const Model<T> model(scenario.model, scenario.d());
    const auto n = tokens.rows(), d = tokens.cols();
    // The reverse pass under test: the model's own (batched over the samples) unless a test
    // substitutes one.
    VjpFunction<T> substitute;
    if constexpr (std::is_same_v<T, float>)
        substitute = vjp_.f32;
    else if constexpr (std::is_same_v<T, double>)
        substitute = vjp_.f64;
    else
        substitute = vjp_.exact;
    const bool vjpUnderTestIsReal = !substitute;

    SplitMix64 rng(request.seed);
    std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes; // δ_0, u_0, δ_1, u_1, ...
    for (int s = 0; s < samples; ++s) {
        shapes.emplace_back(n, model.outputWidth());
        shapes.emplace_back(n, d);
    }
    std::vector<Matrix<T>> drawn = drawMatrices<T>(request, rng, shapes), deltas, dirs;
    for (int s = 0; s < samples; ++s) {
        deltas.push_back(std::move(drawn[std::size_t(2 * s)]));
        dirs.push_back(std::move(drawn[std::size_t(2 * s + 1)]));
    }
    // About what one sample's finite difference costs (two float64 forwards).
    const double sampleWork = 2.0 * double(n) * double(n + d) * double(d) *
                              double(std::max<std::size_t>(1, model.layerCount()));

    // The passes the check compares, side by side on the threads (each batched over the
    // samples): the reverse pass under test and the JVP in T; in float32 also the real reverse
    // pass and both again in float64, for the rounding they carry.
    const auto count = std::size_t(samples);
    constexpr bool single = std::is_same_v<T, float>;
    const Model<double> reference(scenario.model, scenario.d());
    const Eigen::MatrixXd x = toDoubleMatrix(tokens);
    std::vector<Eigen::MatrixXd> deltasD, dirsD;
    for (std::size_t s = 0; s < count; ++s) {
        deltasD.push_back(toDoubleMatrix(deltas[s]));
        dirsD.push_back(toDoubleMatrix(dirs[s]));
    }
    std::vector<Matrix<T>> grads, tangents, realGrads;
    std::vector<Eigen::MatrixXd> gradsHigh, tangentsHigh;
    std::vector<std::function<void()>> passes = {[&] {
                                                     if (vjpUnderTestIsReal) {
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
        if (!vjpUnderTestIsReal) passes.push_back([&] { realGrads = vjp(model, tokens, deltas); });
    }
    // Side by side while there are at least as many passes as threads; with more threads, one
    // after the other, each spreading its samples (a nested loop would run serially).
    const bool sideBySide = long(passes.size()) >= kernels::availableThreads();
    forEachItem(request, long(passes.size()),
                sideBySide ? 3.0 * sampleWork * double(samples * passes.size()) : 0.0,
                [&](long i) { passes[std::size_t(i)](); });
    for (const Matrix<T>& g : grads)
        if (g.rows() != n || g.cols() != d)
            throw InputError("gradient: the reverse pass returned a " + std::to_string(g.rows()) +
                             " x " + std::to_string(g.cols()) + " matrix, expected " +
                             std::to_string(n) + " x " + std::to_string(d));

    // The identity ⟨J·u, δ⟩ = ⟨u, Jᵀ·δ⟩ in T, relative to Σ|J·u|·|δ| and Σ|u|·|Jᵀδ|.
    std::vector<T> lhsDots(count), rhsDots(count), identityScales(count), relative(count);
    for (std::size_t s = 0; s < count; ++s) {
        lhsDots[s] = dot(tangents[s], deltas[s]);
        rhsDots[s] = dot(dirs[s], grads[s]);
        identityScales[s] = std::max<T>(absDot(tangents[s], deltas[s]), absDot(dirs[s], grads[s]));
        relative[s] = identityScales[s] > T(0)
                          ? T(absolute<T>(T(lhsDots[s] - rhsDots[s])) / identityScales[s])
                          : T(0);
    }
    T identityWorst = T(0);
    nlohmann::json identityWitness;
    nlohmann::json perSample = nlohmann::json::array();
    for (std::size_t s = 0; s < count; ++s) {
        perSample.push_back({{"jvp_identity", scalarJson<T>(relative[s])}});
        if (identityWitness.is_null() || relative[s] > identityWorst) {
            identityWorst = relative[s];
            identityWitness = {{"against", "forward-mode JVP"},
                               {"sample", s},
                               {"jvp_dot", scalarJson<T>(lhsDots[s])},
                               {"vjp_dot", scalarJson<T>(rhsDots[s])}};
        }
    }

    PropertyReport report;
    report.name = name();
    report.exact = exact;
    report.checked = {{"samples", samples}, {"seed", request.seed}, {"jvp_identity", samples}};
    std::ostringstream rule;
    long depth = 0;
    {
        int width = int(d);
        for (std::size_t i = 0; i < model.layerCount(); ++i) {
            depth += n + width;
            const LayerWeights<T>& w = model.weights(i);
            width = int(w.wo ? w.wo->cols() : w.wv.cols());
        }
    }
    double fdWorst = 0;
    nlohmann::json fdWitness;
    long skipped = 0;
    if constexpr (exact) {
        report.checked["finite_differences"] =
            "skipped in exact mode: the identity <J u, delta> = <u, J^T delta> against the "
            "forward-mode JVP is checked exactly instead";
        report.tolerance = "0";
        report.toleranceRule = "exact arithmetic: <J u, delta> must equal <u, J^T delta> exactly "
                               "(relative error 0)";
        report.maxDeviation = scalarJson<T>(identityWorst);
        report.verdict = identityWorst == T(0) ? Verdict::Holds : Verdict::Fails;
        report.witness = identityWitness;
    } else {
        std::vector<Eigen::MatrixXd> gradsD;
        for (const Matrix<T>& g : grads)
            gradsD.push_back(toDoubleMatrix(g));
        FiniteDifferences fd{reference, x, request};
        for (const LayerSpec& layer : scenario.model.layers)
            fd.kinks = fd.kinks || layer.ffn || layer.mixer.kind == MixerSpec::Kind::SoftmaxLike;
        Worst worst;
        const bool everyEntry = n * d <= kFullEntries && n <= kFullRows;
        if (everyEntry)
            fd.everyEntry(deltasD, gradsD, worst);
        else
            fd.directions(deltasD, dirsD, gradsD, sampleWork, worst);
        fdWorst = worst.error;
        fdWitness = worst.witness;
        skipped = fd.skipped;
        report.checked["finite_differences"] = {
            {"reference",
             "central differences of <f(X), delta> in float64, h = 1e-6 * max(1, |x|)"},
            {"mode", everyEntry ? "every token entry"
                                : "along each sample's random direction u (n·d > 512 or n > 128)"},
            {"compared", fd.compared},
            {"skipped_at_relu_kinks", fd.skipped}};
        // float32: the rounding of the reverse pass and of the JVP, measured by running the
        // real ones in float32 and in float64 (relative to the same scales as the comparisons).
        double rounding = 0;
        if constexpr (single) {
            const std::vector<Matrix<T>>& lows = vjpUnderTestIsReal ? grads : realGrads;
            for (std::size_t s = 0; s < count; ++s) {
                const Eigen::MatrixXd low = toDoubleMatrix(lows[s]);
                const double size = gradsHigh[s].cwiseAbs().maxCoeff();
                if (size > 0)
                    rounding =
                        std::max(rounding, (low - gradsHigh[s]).cwiseAbs().maxCoeff() / size);
                const double lhsHigh = tangentsHigh[s].cwiseProduct(deltasD[s]).sum();
                const double lhsError = std::abs(double(lhsDots[s]) - lhsHigh);
                const double rhsError = std::abs(dirsD[s].cwiseProduct(low - gradsHigh[s]).sum());
                if (identityScales[s] > 0)
                    rounding =
                        std::max(rounding, (lhsError + rhsError) / double(identityScales[s]));
            }
            report.checked["float32_rounding"] = rounding;
        }
        const double unit = std::numeric_limits<T>::epsilon() / 2;
        const double tol =
            single ? kFloorTol + 2 * rounding : std::max(kFloorTol, 16 * unit * double(depth));
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
        report.toleranceRule = rule.str();
        report.tolerance = tol;
        const double idWorst = ScalarOps<T>::toDouble(identityWorst);
        const bool fdIsWorse = fdWorst > idWorst;
        report.maxDeviation = std::max(fdWorst, idWorst);
        report.verdict = std::max(fdWorst, idWorst) <= tol ? Verdict::Holds : Verdict::Fails;
        report.witness = fdIsWorse ? fdWitness : identityWitness;
    }
    report.details = {{"per_sample", perSample}};
    const auto text = [](const nlohmann::json& v) {
        return v.is_string() ? v.get<std::string>() : v.dump();
    };
    std::ostringstream why;
    if (report.verdict == Verdict::Holds) {
        report.witness = nullptr;
        why << "the reverse pass J^T delta agrees with "
            << (exact ? "the forward-mode JVP exactly"
                      : "central finite differences (float64) and the forward-mode JVP")
            << " on " << samples << " random (delta, u) pairs";
    } else if (report.witness.contains("finite_difference")) {
        const nlohmann::json& w = report.witness;
        why << "the reverse pass is wrong: for sample " << text(w["sample"]) << " the VJP gives "
            << text(w["vjp"]) << " where finite differences give " << text(w["finite_difference"]);
        if (w.contains("row"))
            why << " (token " << text(w["row"]) << ", column " << text(w["column"]) << ")";
    } else {
        why << "the reverse pass is not the transpose of the forward derivative: for sample "
            << text(report.witness["sample"])
            << ", <J u, delta> = " << text(report.witness["jvp_dot"])
            << " (forward mode) but <u, J^T delta> = " << text(report.witness["vjp_dot"]);
    }
    if (skipped > 0)
        why << "; " << skipped
            << " finite differences were skipped because a ReLU argument changes sign within "
               "the step (f is not differentiable there; the VJP uses relu'(0) = 0)";
    report.explanation = why.str();
    return report;
}

PropertyReport GradientCheck::run(const CheckRequest& request) const {
    expectParams(request, {"samples"});
    const int samples = int(integerParam(request, "samples", 4, 1, 10000));
    return withScalar(request.scenario.precision,
                      [&]<class T>() { return runIn<T>(request, samples); });
}

std::unique_ptr<PropertyCheck> makeGradientCheck() {
    return std::make_unique<GradientCheck>();
}

std::unique_ptr<PropertyCheck> makeGradientCheck(VjpOverride vjpUnderTest) {
    return std::make_unique<GradientCheck>(std::move(vjpUnderTest));
}

} // namespace attnlab
