// SPDX-License-Identifier: GPL-3.0-or-later
// Numerical edge cases, each with a defined result (docs/cli.md, "Numerical edge cases"), in every
// precision the mixer allows and on every backend with a device: logits of magnitude 1e4 and
// 1e-30, all-masked rows, n = 1, d = 1, a zero scale, ssm with a = 0 and a = 1, and subnormal
// inputs.
#include "core/backend/registry.h"
#include "core/model/model.h"
#include "core/test_support.h"

#include <QTest>

#include <limits>

using namespace attnlab;
using attnlab::test::modelOf;

namespace {

/// The backends that can run here: always the CPU, OpenCL when it has a device.
std::vector<BackendChoice> availableBackends() {
    std::vector<BackendChoice> list{BackendChoice::Cpu};
    if (const Backend* b = findBackend("opencl"); b && !b->devices().empty())
        list.push_back(BackendChoice::OpenCl);
    return list;
}

ModelSpec oneLayer(MixerSpec mixer, MaskSpec mask = MaskSpec::all()) {
    LayerSpec layer;
    layer.mixer = mixer;
    layer.mask = mask;
    return modelOf(PositionalSpec{}, {layer});
}

MixerSpec mixer(MixerSpec::Kind kind, std::optional<Rational> scale = std::nullopt) {
    MixerSpec m;
    m.kind = kind;
    m.scale = scale;
    return m;
}

/// What a one-layer forward pass gave, in double whatever it computed in.
struct Result {
    Eigen::MatrixXd weights, output;
    std::vector<std::string> warnings;
};

template <class T>
Result run(const ModelSpec& spec, const Matrix<Rational>& x, BackendChoice backend) {
    const Trace<T> t = Model<T>(spec, int(x.cols()), backend).forward(fromRational<T>(x));
    return {toDoubleMatrix(t.layers[0].heads[0].weights), toDoubleMatrix(t.output), t.warnings};
}

/// Runs `check` for float and double on every available backend, and for exact on the CPU
/// when `exact` (the mixer needs no exp).
template <class F>
void everyPrecisionAndBackend(bool exact, F&& check) {
    for (BackendChoice b : availableBackends()) {
        check.template operator()<float>(b);
        check.template operator()<double>(b);
    }
    if (exact) check.template operator()<Rational>(BackendChoice::Cpu);
}

} // namespace

class TestNumerics : public QObject {
    Q_OBJECT
private slots:
    void largeLogitsGiveAOneHotSoftmax() {
        // S = X Xᵀ with rows of norm 100: logits 1e4 apart; the row max is subtracted first.
        const Matrix<Rational> x = test::rat("100 0; 0 100; 70 70");
        everyPrecisionAndBackend(false, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::Softmax, Rational(1))), x, b);
            const Eigen::MatrixXd& a = t.weights;
            QVERIFY(a.allFinite() && t.output.allFinite());
            QCOMPARE(a(0, 0), 1.0);
            QCOMPARE(a(0, 1), 0.0);
            QCOMPARE(t.output(0, 0), 100.0);
        });
    }

    void tinyLogitsGiveUniformWeights() {
        const Matrix<Rational> x = test::rat("1/1000000000000000 0; 0 1/1000000000000000; 0 0");
        everyPrecisionAndBackend(false, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::Softmax, Rational(1))), x, b);
            const Eigen::MatrixXd& a = t.weights; // logits ~1e-30
            for (Eigen::Index i = 0; i < a.size(); ++i)
                QVERIFY(std::abs(a(i) - 1.0 / 3) < 1e-6);
        });
    }

    void allMaskedRowsGiveZeroAndAWarning() {
        const Matrix<Rational> x = test::rat("1 2; 3 4; 5 6");
        const MaskSpec mask =
            MaskSpec::both({MaskSpec::causal(), MaskSpec::negation(MaskSpec::window(0))}); // t < s
        everyPrecisionAndBackend(true, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::SoftmaxLike), mask), x, b);
            QCOMPARE(t.output.row(0).cwiseAbs().maxCoeff(), 0.0); // row 0 sees nothing
            QVERIFY(t.output.row(1).cwiseAbs().maxCoeff() > 0);
            QCOMPARE(t.warnings.size(), std::size_t(1));
            QVERIFY(QString::fromStdString(t.warnings[0]).contains("row 0"));
        });
    }

    void oneTokenAttendsToItself() {
        const Matrix<Rational> x = test::rat("3 -1/2");
        everyPrecisionAndBackend(false, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::Softmax)), x, b);
            QCOMPARE(t.weights(0, 0), 1.0);
            QCOMPARE(t.output(0, 1), -0.5);
        });
    }

    void oneFeature() {
        const Matrix<Rational> x = test::rat("1; 2; -1");
        everyPrecisionAndBackend(true, [&]<class T>(BackendChoice b) {
            // softmax_like: weights (1 + relu(s t)) / Σ, e.g. row 1: 1+2, 1+4, 1 over 9.
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::SoftmaxLike)), x, b);
            QVERIFY(std::abs(t.output(1, 0) - (3.0 * 1 + 5.0 * 2 + 1.0 * -1) / 9) < 1e-6);
        });
    }

    void zeroScaleAveragesTheValues() {
        const Matrix<Rational> x = test::rat("1 0; 0 1; 2 5");
        everyPrecisionAndBackend(false, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::Softmax, Rational(0))), x, b);
            QVERIFY(std::abs(t.output(0, 0) - 1.0) < 1e-6);
            QVERIFY(std::abs(t.output(2, 1) - 2.0) < 1e-6);
        });
    }

    void ssmWithDecayZeroAndOne_data() {
        QTest::addColumn<int>("decay");
        QTest::addColumn<double>("lastOutput");
        // q = k = v = x = (1, 2, 3) in one feature. a = 0: only s = t, 3·3·3 = 27.
        // a = 1: Σ_{t ≤ 2} (3·x_t)·x_t = 3·(1 + 4 + 9) = 42.
        QTest::newRow("a = 0") << 0 << 27.0;
        QTest::newRow("a = 1") << 1 << 42.0;
    }
    void ssmWithDecayZeroAndOne() {
        QFETCH(int, decay);
        QFETCH(double, lastOutput);
        MixerSpec m = mixer(MixerSpec::Kind::Ssm);
        m.a = decay;
        const Matrix<Rational> x = test::rat("1; 2; 3");
        everyPrecisionAndBackend(true, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(m), x, b);
            QCOMPARE(t.output(2, 0), lastOutput);
            QCOMPARE(t.output(0, 0), 1.0);
        });
    }

    void subnormalInputsStayFinite() {
        // 1e-310 is subnormal in double and flushes or underflows to 0 in float: either way the
        // result is finite and the weights of a zero-logit row are uniform.
        const Matrix<Rational> x = Matrix<Rational>::Constant(3, 2, decimalRational(1e-310));
        everyPrecisionAndBackend(true, [&]<class T>(BackendChoice b) {
            const Result t = run<T>(oneLayer(mixer(MixerSpec::Kind::SoftmaxLike)), x, b);
            QVERIFY(t.output.allFinite());
            QVERIFY(std::abs(t.weights(0, 2) - 1.0 / 3) < 1e-6);
            QVERIFY(t.output.cwiseAbs().maxCoeff() <= 1e-309);
        });
    }

    void valuesBeyondThePrecisionAreRefused() {
        // 1e39 has no float: it is refused where it is converted, never computed as an infinity.
        // Double holds it, and exact mode holds 1e309 too.
        Matrix<Rational> x = Matrix<Rational>::Ones(2, 2);
        x(1, 0) = Rational(1e39);
        try {
            (void)fromRational<float>(x);
            QFAIL("1e39 became a float");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()),
                     QString("[1][0]: 1e+39 is beyond the range of float32 (largest 3.4e+38)"));
        }
        QCOMPARE(fromRational<double>(x)(1, 0), 1e39);
        QCOMPARE(ScalarOps<float>::fromRational(Rational(std::numeric_limits<float>::max())),
                 std::numeric_limits<float>::max());
        const Rational huge = parseRational("1e309");
        QVERIFY_THROWS_EXCEPTION(InputError, (void)ScalarOps<double>::fromRational(huge));
        QCOMPARE(ScalarOps<Rational>::fromRational(huge), huge);
    }

    void aComputationThatOverflowsIsAnError() {
        // Finite inputs whose scores overflow: 1e300² in double, 1e30² in float. The forward
        // pass refuses, naming the layer, rather than hand NaN weights to the views and checks.
        everyPrecisionAndBackend(false, [&]<class T>(BackendChoice b) {
            Matrix<Rational> x = Matrix<Rational>::Ones(3, 2);
            x(2, 1) = parseRational(sizeof(T) == 4 ? "1e30" : "1e300");
            try {
                (void)run<T>(oneLayer(mixer(MixerSpec::Kind::Softmax)), x, b);
                QFAIL(qPrintable(QString("%1-byte floats gave a result").arg(sizeof(T))));
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).startsWith("layers[0]: its output is not finite"),
                         e.what());
            }
        });
    }
};

QTEST_GUILESS_MAIN(TestNumerics)
#include "test_numerics.moc"
