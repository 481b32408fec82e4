// SPDX-License-Identifier: GPL-3.0-or-later
// Gradient correctness (properties.md §2.14): the reverse pass against central finite
// differences in double for every mixer with heads, RoPE, ALiBi, ffn, Wo and residual; the
// forward-mode identity <J u, delta> = <u, J^T delta> exactly in Rational; mask all versus an
// explicit all-ones mask; and the `gradient` check, which holds for the real reverse pass and
// fails when a deliberately wrong one is plugged in.
#include "core/base/error.h"
#include "core/base/random.h"
#include "core/checks/properties/gradient/gradient_check.h"
#include "core/model/backward.h"
#include "core/test_support.h"

#include <QtTest>

#include <cmath>

using namespace attnlab;
using attnlab::test::modelOf;

Q_DECLARE_METATYPE(attnlab::ModelSpec)
Q_DECLARE_METATYPE(attnlab::Scenario)

namespace {

LayerSpec layer(MixerSpec::Kind kind, MaskSpec mask, int heads, std::uint64_t seed, bool extras) {
    LayerSpec l;
    l.mixer.kind = kind;
    l.mask = std::move(mask);
    l.heads = heads;
    l.wq = MatrixSpec::random(seed + 1, Rational(1, 2));
    l.wk = MatrixSpec::random(seed + 2, Rational(1, 2));
    l.wv = MatrixSpec::random(seed + 3, Rational(1, 2));
    if (extras) {
        l.ffn = MatrixSpec::random(seed + 4, Rational(1, 2));
        l.wo = MatrixSpec::random(seed + 5, Rational(1, 2));
        l.residual = true;
    }
    return l;
}

MixerSpec ssmMixer(Rational a, bool bidirectional) {
    MixerSpec m;
    m.kind = MixerSpec::Kind::Ssm;
    m.a = a;
    m.bidirectional = bidirectional;
    return m;
}

PositionalSpec positional(PositionalSpec::Kind kind) {
    PositionalSpec p;
    p.kind = kind;
    p.offset = 1;
    if (kind == PositionalSpec::Kind::Alibi) p.slopes = {Rational(1, 2), Rational(1, 4)};
    return p;
}

template <class T>
Matrix<T> draw(SplitMix64& rng, Eigen::Index rows, Eigen::Index cols) {
    Matrix<T> m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        if constexpr (ScalarOps<T>::exact)
            m(i) = T(rng.integer(-3, 3));
        else
            m(i) = T(rng.normal());
    }
    return m;
}

double dotD(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return a.cwiseProduct(b).sum();
}

// Central finite differences of <f(X), delta> entry by entry.
Eigen::MatrixXd finiteDifferences(const Model<double>& model, const Eigen::MatrixXd& x,
                                  const Eigen::MatrixXd& delta) {
    Eigen::MatrixXd g(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
        Eigen::MatrixXd plus = x, minus = x;
        const double h = 1e-6 * std::max(1.0, std::abs(x(i)));
        plus(i) += h;
        minus(i) -= h;
        g(i) =
            dotD(model.forward(plus, Maps::Drop).output - model.forward(minus, Maps::Drop).output,
                 delta) /
            (plus(i) - minus(i));
    }
    return g;
}

Scenario scenarioOf(ModelSpec model, Precision precision, int n, int d) {
    Scenario s;
    s.precision = precision;
    s.tokens = TokenSpec::random(n, d, 17);
    s.model = std::move(model);
    return s;
}

PropertyReport runCheck(const PropertyCheck& check, const Scenario& s, int samples = 3) {
    CheckRequest request{s, {{"samples", samples}}, 5, {}, {}};
    return check.run(request);
}

} // namespace

class TestGradient : public QObject {
    Q_OBJECT

private slots:
    // The gradient check draws its samples' matrices side by side, each from the point of the
    // stream where the one before ends: discard(k) must be k calls of next().
    void discardMovesTheStreamAsDrawsWould() {
        for (std::uint64_t k : {0ULL, 1ULL, 2ULL, 1000ULL, 65536ULL}) {
            SplitMix64 drawn(17), skipped(17);
            for (std::uint64_t i = 0; i < k; ++i)
                drawn.next();
            skipped.discard(k);
            QCOMPARE(skipped.next(), drawn.next());
            QCOMPARE(skipped.normal(), drawn.normal());
        }
    }

    void vjpMatchesFiniteDifferences_data();
    void vjpMatchesFiniteDifferences();
    void vjpMatchesFiniteDifferencesOverMaskBlocks_data();
    void vjpMatchesFiniteDifferencesOverMaskBlocks();
    void exactJvpIdentity_data();
    void exactJvpIdentity();
    void batchedPassesEqualOneAtATime();
    void maskAllEqualsAllOnesMask();
    void tiledAndChunkedForwardsHaveTheSameGradient();
    void checkHolds_data();
    void checkHolds();
    void checkFailsForWrongVjp();
    void checkSkipsKinks();
    void checkRefusesBadParameters();

private:
    // The reverse and forward passes of `spec` on n tokens against central finite differences.
    void verifyAgainstFiniteDifferences(const ModelSpec& spec, int n);
};

void TestGradient::vjpMatchesFiniteDifferences_data() {
    QTest::addColumn<ModelSpec>("spec");
    using K = MixerSpec::Kind;
    using P = PositionalSpec::Kind;
    ModelSpec softmax =
        modelOf(positional(P::Rope), {layer(K::Softmax, MaskSpec::causal(), 2, 10, true),
                                      layer(K::Softmax, MaskSpec::all(), 2, 20, false)});
    softmax.layers[0].mixer.scale = Rational(3, 4);
    QTest::newRow("softmax causal, rope, 2 heads, ffn, wo, residual") << softmax;
    QTest::newRow("softmax_like, alibi")
        << modelOf(positional(P::Alibi), {layer(K::SoftmaxLike, MaskSpec::all(), 2, 30, true)});
    QTest::newRow("softmax_like causal, rope")
        << modelOf(positional(P::Rope), {layer(K::SoftmaxLike, MaskSpec::causal(), 2, 35, true)});
    QTest::newRow("raw window(1), rope")
        << modelOf(positional(P::Rope), {layer(K::Raw, MaskSpec::window(1), 2, 40, true)});
    QTest::newRow("softmax window(1), alibi")
        << modelOf(positional(P::Alibi), {layer(K::Softmax, MaskSpec::window(1), 2, 45, true)});
    LayerSpec causalSsm = layer(K::Softmax, MaskSpec::all(), 2, 50, true);
    causalSsm.mixer = ssmMixer(Rational(1, 2), false);
    QTest::newRow("ssm causal a=1/2, rope") << modelOf(positional(P::Rope), {causalSsm});
    LayerSpec bidiSsm = layer(K::Softmax, MaskSpec::all(), 2, 60, true);
    bidiSsm.mixer = ssmMixer(Rational(1, 2), true);
    QTest::newRow("ssm bidirectional a=1/2, alibi, then softmax") << modelOf(
        positional(P::Alibi), {bidiSsm, layer(K::Softmax, MaskSpec::all(), 2, 70, false)});
    BoolMatrix holes = BoolMatrix::Constant(5, 5, true);
    holes.row(0).setConstant(false); // an all-masked row: zero output, zero gradient
    holes(2, 3) = holes(4, 1) = false;
    for (auto kind : {K::Softmax, K::SoftmaxLike, K::Raw})
        QTest::newRow(("custom mask with an all-masked row, " + mixerKindName(kind)).c_str())
            << modelOf(positional(P::Rope), {layer(kind, MaskSpec::custom(holes), 2, 90, true)});
    QTest::newRow("raw, learned positions")
        << modelOf(positional(P::Learned), {layer(K::Raw, MaskSpec::causal(), 1, 80, true)});
}

void TestGradient::vjpMatchesFiniteDifferences() {
    QFETCH(ModelSpec, spec);
    verifyAgainstFiniteDifferences(spec, 5);
}

void TestGradient::vjpMatchesFiniteDifferencesOverMaskBlocks_data() {
    // 70 tokens: the passes multiply only the blocks of 32 rows and columns a mask can reach
    // (core/model/block_support.h); ragged blocks, a block with no allowed entry, bands.
    QTest::addColumn<ModelSpec>("spec");
    using K = MixerSpec::Kind;
    using P = PositionalSpec::Kind;
    const int n = 70;
    QTest::newRow("softmax, causal, then window(3)")
        << modelOf(positional(P::Rope), {layer(K::Softmax, MaskSpec::causal(), 2, 10, true),
                                         layer(K::Softmax, MaskSpec::window(3), 1, 20, false)});
    QTest::newRow("softmax_like, causal_window(40)") << modelOf(
        positional(P::Alibi), {layer(K::SoftmaxLike, MaskSpec::causalWindow(40), 2, 30, true)});
    BoolMatrix holes = buildMask(MaskSpec::causal(), n);
    holes.col(69).setConstant(true);             // a key every row sees, but
    holes.middleRows(32, 32).setConstant(false); // a whole block of all-masked rows
    QTest::newRow("raw, custom mask with a block of all-masked rows")
        << modelOf(positional(P::Rope), {layer(K::Raw, MaskSpec::custom(holes), 2, 40, true)});
    LayerSpec causalSsm = layer(K::Softmax, MaskSpec::all(), 2, 50, true);
    causalSsm.mixer = ssmMixer(Rational(1, 2), false);
    QTest::newRow("causal ssm") << modelOf({}, {causalSsm});
}

void TestGradient::vjpMatchesFiniteDifferencesOverMaskBlocks() {
    QFETCH(ModelSpec, spec);
    verifyAgainstFiniteDifferences(spec, 70);
}

void TestGradient::verifyAgainstFiniteDifferences(const ModelSpec& spec, int n) {
    const int d = 4;
    const Model<double> model(spec, d);
    SplitMix64 rng(3);
    const Eigen::MatrixXd x = draw<double>(rng, n, d);
    for (int sample = 0; sample < 2; ++sample) {
        const Eigen::MatrixXd delta = draw<double>(rng, n, model.outputWidth());
        const Eigen::MatrixXd u = draw<double>(rng, n, d);
        const Eigen::MatrixXd g = vjp(model, x, delta);
        const Eigen::MatrixXd fd = finiteDifferences(model, x, delta);
        const double scale = std::max(1e-12, fd.cwiseAbs().maxCoeff());
        QVERIFY2(
            (g - fd).cwiseAbs().maxCoeff() / scale < 1e-6,
            qPrintable(QString("relative error %1").arg((g - fd).cwiseAbs().maxCoeff() / scale)));
        // Forward mode against a directional difference, and the transpose identity.
        const Eigen::MatrixXd ju = jvp(model, x, u);
        const double t = 1e-6;
        const Eigen::MatrixXd dir = (model.forward(x + t * u, Maps::Drop).output -
                                     model.forward(x - t * u, Maps::Drop).output) /
                                    (2 * t);
        QVERIFY((ju - dir).cwiseAbs().maxCoeff() <=
                1e-6 * std::max(1.0, dir.cwiseAbs().maxCoeff()));
        QVERIFY(std::abs(dotD(ju, delta) - dotD(u, g)) <=
                1e-12 * ju.cwiseAbs().cwiseProduct(delta.cwiseAbs()).sum() + 1e-300);
    }
}

void TestGradient::exactJvpIdentity_data() {
    QTest::addColumn<ModelSpec>("spec");
    QTest::addColumn<int>("n");
    using K = MixerSpec::Kind;
    using P = PositionalSpec::Kind;
    QTest::newRow("softmax_like causal, alibi, ffn, wo, residual")
        << modelOf(positional(P::Alibi), {layer(K::SoftmaxLike, MaskSpec::causal(), 2, 1, true),
                                          layer(K::SoftmaxLike, MaskSpec::all(), 2, 2, false)})
        << 4;
    QTest::newRow("raw window(1)")
        << modelOf(positional(P::Alibi), {layer(K::Raw, MaskSpec::window(1), 2, 3, true)}) << 4;
    LayerSpec causalSsm = layer(K::Raw, MaskSpec::all(), 2, 4, true);
    causalSsm.mixer = ssmMixer(Rational(1, 2), false);
    LayerSpec bidiSsm = layer(K::Raw, MaskSpec::all(), 2, 5, false);
    bidiSsm.mixer = ssmMixer(Rational(2, 3), true);
    QTest::newRow("ssm causal then bidirectional")
        << modelOf(positional(P::Learned), {causalSsm, bidiSsm}) << 4;
    // Over blocks of 32 tokens (core/model/block_support.h): ragged, a window's band.
    QTest::newRow("raw causal then window(2), 40 tokens")
        << modelOf(positional(P::Alibi), {layer(K::Raw, MaskSpec::causal(), 2, 6, true),
                                          layer(K::Raw, MaskSpec::window(2), 2, 7, false)})
        << 40;
}

void TestGradient::exactJvpIdentity() {
    QFETCH(ModelSpec, spec);
    QFETCH(int, n);
    const int d = 4;
    const Model<Rational> model(spec, d);
    SplitMix64 rng(11);
    const Matrix<Rational> x = draw<Rational>(rng, n, d);
    for (int sample = 0; sample < 3; ++sample) {
        const Matrix<Rational> delta = draw<Rational>(rng, n, model.outputWidth());
        const Matrix<Rational> u = draw<Rational>(rng, n, d);
        const Matrix<Rational> g = vjp(model, x, delta), ju = jvp(model, x, u);
        Rational lhs = 0, rhs = 0;
        for (Eigen::Index i = 0; i < ju.size(); ++i)
            lhs += ju(i) * delta(i);
        for (Eigen::Index i = 0; i < u.size(); ++i)
            rhs += u(i) * g(i);
        QCOMPARE(rationalText(lhs), rationalText(rhs));
        QVERIFY(g != Matrix<Rational>::Zero(n, d));
    }
    // The same gradient in double, to within rounding (random weights and the learned table
    // differ between exact and float modes, so both use the exact numbers as given values).
    ModelSpec given = spec;
    for (std::size_t i = 0; i < model.layerCount(); ++i) {
        const LayerWeights<Rational>& w = model.weights(i);
        LayerSpec& l = given.layers[i];
        l.wq = MatrixSpec::given(w.wq);
        l.wk = MatrixSpec::given(w.wk);
        l.wv = MatrixSpec::given(w.wv);
        if (w.ffn) l.ffn = MatrixSpec::given(*w.ffn);
        if (w.wo) l.wo = MatrixSpec::given(*w.wo);
    }
    if (given.positional.kind == PositionalSpec::Kind::Learned) {
        given.positional.seeded = false;
        given.positional.table =
            MatrixSpec::given(MatrixSpec::random(given.positional.seed)
                                  .materialize<Rational>(n + int(given.positional.offset), d));
    }
    const Model<double> md(given, d);
    SplitMix64 again(11);
    const Matrix<Rational> xr = draw<Rational>(again, n, d);
    const Matrix<Rational> dr = draw<Rational>(again, n, model.outputWidth());
    const Eigen::MatrixXd gd = vjp(md, toDoubleMatrix(xr), toDoubleMatrix(dr));
    const Eigen::MatrixXd ge = toDoubleMatrix(vjp(model, xr, dr));
    QVERIFY((gd - ge).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, ge.cwiseAbs().maxCoeff()));
}

void TestGradient::batchedPassesEqualOneAtATime() {
    // Each sample's pass in a batch is the same arithmetic as alone (whether the batch spreads
    // over threads or not), so the results must be bit-for-bit those of one call per sample.
    using K = MixerSpec::Kind;
    const ModelSpec spec = modelOf(positional(PositionalSpec::Kind::Rope),
                                   {layer(K::Softmax, MaskSpec::causal(), 2, 10, true),
                                    layer(K::SoftmaxLike, MaskSpec::window(9), 2, 20, false)});
    const int n = 320, d = 8;
    const Model<double> model(spec, d);
    SplitMix64 rng(5);
    const Eigen::MatrixXd x = draw<double>(rng, n, d);
    std::vector<Eigen::MatrixXd> deltas, directions;
    for (int k = 0; k < 4; ++k) {
        deltas.push_back(draw<double>(rng, n, model.outputWidth()));
        directions.push_back(draw<double>(rng, n, d));
    }
    const std::vector<Eigen::MatrixXd> grads = vjp(model, x, deltas),
                                       tangents = jvp(model, x, directions);
    QCOMPARE(grads.size(), deltas.size());
    QCOMPARE(tangents.size(), directions.size());
    for (std::size_t k = 0; k < deltas.size(); ++k) {
        QVERIFY(grads[k] == vjp(model, x, deltas[k]));
        QVERIFY(tangents[k] == jvp(model, x, directions[k]));
    }
    deltas.push_back(Eigen::MatrixXd::Zero(n + 1, model.outputWidth())); // one misfit: refused
    QVERIFY_THROWS_EXCEPTION(InputError, vjp(model, x, deltas));
}

void TestGradient::maskAllEqualsAllOnesMask() {
    for (auto kind :
         {MixerSpec::Kind::Softmax, MixerSpec::Kind::SoftmaxLike, MixerSpec::Kind::Raw}) {
        const int n = 5, d = 4;
        ModelSpec all = modelOf(positional(PositionalSpec::Kind::Rope),
                                {layer(kind, MaskSpec::all(), 2, 9, true)});
        ModelSpec ones = all;
        ones.layers[0].mask = MaskSpec::custom(BoolMatrix::Constant(n, n, true));
        SplitMix64 rng(2);
        const Eigen::MatrixXd x = draw<double>(rng, n, d), delta = draw<double>(rng, n, d);
        const Eigen::MatrixXd a = vjp(Model<double>(all, d), x, delta);
        const Eigen::MatrixXd b = vjp(Model<double>(ones, d), x, delta);
        QVERIFY(a == b);
        QVERIFY(a.cwiseAbs().maxCoeff() > 0);
    }
}

void TestGradient::tiledAndChunkedForwardsHaveTheSameGradient() {
    ModelSpec plain =
        modelOf({}, {layer(MixerSpec::Kind::Softmax, MaskSpec::causal(), 1, 7, true)});
    ModelSpec tiled = plain;
    tiled.layers[0].mixer.tile = 2;
    SplitMix64 rng(4);
    const Eigen::MatrixXd x = draw<double>(rng, 5, 3), delta = draw<double>(rng, 5, 3);
    QVERIFY(vjp(Model<double>(plain, 3), x, delta)
                .isApprox(vjp(Model<double>(tiled, 3), x, delta), 1e-12));
    ModelSpec chunked = plain;
    chunked.layers[0].mixer = ssmMixer(Rational(1, 2), false);
    chunked.layers[0].mask = MaskSpec::all();
    chunked.layers[0].mixer.chunk = 2;
    const Eigen::MatrixXd fd = finiteDifferences(Model<double>(chunked, 3), x, delta);
    const Eigen::MatrixXd g = vjp(Model<double>(chunked, 3), x, delta);
    QVERIFY((g - fd).cwiseAbs().maxCoeff() <= 1e-6 * std::max(1.0, fd.cwiseAbs().maxCoeff()));
}

void TestGradient::checkHolds_data() {
    QTest::addColumn<Scenario>("scenario");
    using K = MixerSpec::Kind;
    using P = PositionalSpec::Kind;
    const ModelSpec rope =
        modelOf(positional(P::Rope), {layer(K::Softmax, MaskSpec::causal(), 2, 10, true),
                                      layer(K::SoftmaxLike, MaskSpec::all(), 2, 20, true)});
    QTest::newRow("float64") << scenarioOf(rope, Precision::Float64, 6, 4);
    QTest::newRow("float32") << scenarioOf(rope, Precision::Float32, 6, 4);
    QTest::newRow("float64, directions only (n·d > 512)")
        << scenarioOf(rope, Precision::Float64, 40, 16);
    const ModelSpec exact =
        modelOf(positional(P::Alibi), {layer(K::SoftmaxLike, MaskSpec::causal(), 2, 30, true),
                                       layer(K::Raw, MaskSpec::window(1), 2, 40, true)});
    QTest::newRow("exact") << scenarioOf(exact, Precision::Exact, 4, 2);
}

void TestGradient::checkHolds() {
    QFETCH(Scenario, scenario);
    const auto check = makeGradientCheck();
    QCOMPARE(check->name(), std::string("gradient"));
    const PropertyReport r = runCheck(*check, scenario);
    QVERIFY2(r.verdict == Verdict::Holds, r.explanation.c_str());
    QCOMPARE(r.exact, scenario.precision == Precision::Exact);
    QVERIFY(!r.witness);
    QCOMPARE(r.checked["samples"].get<int>(), 3);
    if (scenario.precision == Precision::Exact) {
        QCOMPARE(r.maxDeviation.json().get<std::string>(), std::string("0"));
        QVERIFY(r.checked["finite_differences"].is_string());
    } else {
        QVERIFY(r.maxDeviation.toDouble() <= r.tolerance.toDouble());
        QVERIFY(r.checked["finite_differences"]["compared"].get<long>() > 0);
        QCOMPARE(r.checked["finite_differences"]["skipped_at_relu_kinks"].get<long>(), 0L);
    }
}

void TestGradient::checkFailsForWrongVjp() {
    const ModelSpec spec =
        modelOf(positional(PositionalSpec::Kind::Rope),
                {layer(MixerSpec::Kind::Softmax, MaskSpec::causal(), 2, 10, true)});
    const Scenario s = scenarioOf(spec, Precision::Float64, 5, 4);
    const auto scaled = makeGradientCheck(
        VjpOverride::everywhere([](const auto& model, const auto& x, const auto& delta) {
            using T = typename std::decay_t<decltype(x)>::Scalar;
            return Matrix<T>(vjp(model, x, delta) * T(101) / T(100));
        }));
    PropertyReport r = runCheck(*scaled, s);
    QCOMPARE(r.verdict, Verdict::Fails);
    QVERIFY(r.maxDeviation.toDouble() > 5e-3);
    QVERIFY(r.witness->json().contains("sample"));
    QVERIFY(!r.explanation.empty());

    // One entry (the largest) zeroed: the finite differences name that entry.
    const auto zeroed = makeGradientCheck(
        VjpOverride::everywhere([](const auto& model, const auto& x, const auto& delta) {
            auto g = vjp(model, x, delta);
            Eigen::Index row = 0, col = 0;
            g.cwiseAbs().maxCoeff(&row, &col);
            g(row, col) = 0;
            return g;
        }));
    r = runCheck(*zeroed, s);
    QCOMPARE(r.verdict, Verdict::Fails);
    QVERIFY(r.witness->json().contains("finite_difference"));
    QCOMPARE(r.witness->json()["vjp"].get<double>(), 0.0);

    // Exact mode: the forward-mode identity catches it, exactly.
    const ModelSpec exactSpec =
        modelOf({}, {layer(MixerSpec::Kind::SoftmaxLike, MaskSpec::all(), 1, 3, true)});
    r = runCheck(*scaled, scenarioOf(exactSpec, Precision::Exact, 3, 2));
    QCOMPARE(r.verdict, Verdict::Fails);
    QVERIFY(r.witness->json().contains("jvp_dot"));
    QVERIFY(r.maxDeviation.json().get<std::string>() != "0");
    QCOMPARE(runCheck(*makeGradientCheck(), scenarioOf(exactSpec, Precision::Exact, 3, 2)).verdict,
             Verdict::Holds);

    // float32 as well.
    r = runCheck(*scaled, scenarioOf(spec, Precision::Float32, 5, 4));
    QCOMPARE(r.verdict, Verdict::Fails);
}

void TestGradient::checkSkipsKinks() {
    // properties.md §2.1's counterexample: relu and softmax_like arguments are exactly 0 at X,
    // where f is not differentiable; those finite differences are skipped, not failed.
    ModelSpec spec;
    spec.positional.kind = PositionalSpec::Kind::Polynomial;
    LayerSpec l;
    l.mixer.kind = MixerSpec::Kind::SoftmaxLike;
    l.ffn = MatrixSpec::identity();
    spec.layers = {l};
    Scenario s;
    s.precision = Precision::Float64;
    Matrix<Rational> x(2, 3);
    x << 0, 0, 0, 1, 0, 0;
    s.tokens = TokenSpec::given(x);
    s.model = spec;
    const PropertyReport r = runCheck(*makeGradientCheck(), s, 4);
    QVERIFY2(r.verdict == Verdict::Holds, r.explanation.c_str());
    QVERIFY(r.checked["finite_differences"]["skipped_at_relu_kinks"].get<long>() > 0);
    s.precision = Precision::Exact;
    QCOMPARE(runCheck(*makeGradientCheck(), s, 4).verdict, Verdict::Holds);
}

void TestGradient::checkRefusesBadParameters() {
    const ModelSpec spec = modelOf({}, {layer(MixerSpec::Kind::Raw, MaskSpec::all(), 1, 1, false)});
    const Scenario s = scenarioOf(spec, Precision::Float64, 3, 2);
    const auto check = makeGradientCheck();
    QVERIFY_THROWS_EXCEPTION(InputError, runCheck(*check, s, 0));
    CheckRequest unknown{s, {{"tile", 2}}, 0, {}, {}};
    QVERIFY_THROWS_EXCEPTION(InputError, check->run(unknown));
    CheckRequest cancelled{s, {}, 0, [] { return true; }, {}};
    QVERIFY_THROWS_EXCEPTION(CancelledError, check->run(cancelled));
}

QTEST_GUILESS_MAIN(TestGradient)
#include "test_gradient.moc"
