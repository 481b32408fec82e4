// SPDX-License-Identifier: GPL-3.0-or-later
// Mixers (properties.md §1.1-1.2): hand-computed weights and outputs in exact arithmetic,
// softmax in double, all-masked rows, scales, precision refusals and names. The tiled and
// chunkwise evaluations are in test_mixer_evaluation.cpp.
#include "core/base/error.h"
#include "core/mixer_test_data.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <optional>

using namespace attnlab;
using namespace attnlab::test;

class TestMixer : public QObject {
    Q_OBJECT
private slots:
    void exactHandCases_data() {
        QTest::addColumn<MixerSpec::Kind>("kind");
        QTest::addColumn<QString>("scale"); // empty: default
        QTest::addColumn<MaskSpec>("mask");
        QTest::addColumn<bool>("withBias");
        QTest::addColumn<QString>("scores");
        QTest::addColumn<QString>("weights");
        QTest::addColumn<QString>("output");
        using K = MixerSpec::Kind;
        // Q = [1; 2; -1], K = [1; 0; 2] (p = 1), V = [1 0; 0 1; 1 1]: Q·Kᵀ below.
        const QString s = "1 0 2; 2 0 4; -1 0 -2";
        QTest::newRow("softmax_like all") << K::SoftmaxLike << "" << MaskSpec::all() << false << s
                                          << "1/3 1/6 1/2; 1/3 1/9 5/9; 1/3 1/3 1/3"
                                          << "5/6 2/3; 8/9 2/3; 2/3 2/3";
        QTest::newRow("softmax_like causal") << K::SoftmaxLike << "" << MaskSpec::causal() << false
                                             << s << "1 0 0; 3/4 1/4 0; 1/3 1/3 1/3"
                                             << "1 0; 3/4 1/4; 2/3 2/3";
        QTest::newRow("softmax_like window(1)") << K::SoftmaxLike << "" << MaskSpec::window(1)
                                                << false << s << "2/3 1/3 0; 1/3 1/9 5/9; 0 1/2 1/2"
                                                << "2/3 1/3; 8/9 2/3; 1/2 1";
        QTest::newRow("softmax_like scale 1/2")
            << K::SoftmaxLike << "1/2" << MaskSpec::all() << false << "1/2 0 1; 1 0 2; -1/2 0 -1"
            << "1/3 2/9 4/9; 1/3 1/6 1/2; 1/3 1/3 1/3"
            << "7/9 2/3; 5/6 2/3; 2/3 2/3";
        // With the bias B[s][t] = -|s - t|.
        QTest::newRow("softmax_like bias")
            << K::SoftmaxLike << "" << MaskSpec::all() << true << "1 -1 0; 1 0 3; -3 -1 -2"
            << "1/2 1/4 1/4; 2/7 1/7 4/7; 1/3 1/3 1/3"
            << "3/4 1/2; 6/7 5/7; 2/3 2/3";
        QTest::newRow("raw all") << K::Raw << "" << MaskSpec::all() << false << s << s
                                 << "3 2; 6 4; -3 -2";
        QTest::newRow("raw causal")
            << K::Raw << "" << MaskSpec::causal() << false << s << "1 0 0; 2 0 0; -1 0 -2"
            << "1 0; 2 0; -3 -2";
        QTest::newRow("raw scale 3")
            << K::Raw << "3" << MaskSpec::causal() << false << "3 0 6; 6 0 12; -3 0 -6"
            << "3 0 0; 6 0 0; -3 0 -6"
            << "3 0; 6 0; -9 -6";
        QTest::newRow("softmax_like scale 1 blocks(1,2)")
            << K::SoftmaxLike << "1" << MaskSpec::blocks({1, 2}) << false << s
            << "1 0 0; 0 1/6 5/6; 0 1/2 1/2"
            << "1 0; 5/6 1; 1/2 1";
    }
    void exactHandCases() {
        QFETCH(MixerSpec::Kind, kind);
        QFETCH(QString, scale);
        QFETCH(MaskSpec, mask);
        QFETCH(bool, withBias);
        QFETCH(QString, scores);
        QFETCH(QString, weights);
        QFETCH(QString, output);
        const Matrix<Rational> q = rat("1; 2; -1"), k = rat("1; 0; 2"), v = rat("1 0; 0 1; 1 1");
        const MixerSpec spec =
            mixer(kind, scale.isEmpty() ? std::nullopt
                                        : std::optional(parseRational(scale.toStdString())));
        const Matrix<Rational> bias = Rational(2) * exactBias(3);
        const BoolMatrix m = buildMask(mask, 3);
        const HeadResult<Rational> r =
            attendHead<Rational>(spec, q, k, v, withBias ? &bias : nullptr, m);
        QCOMPARE(text(r.scores), scores);
        QCOMPARE(text(r.weights), weights);
        QCOMPARE(text(r.output), output);
        QVERIFY(r.allMaskedRows.empty());
        // Blocked keys get exactly 0.
        for (int s = 0; s < 3; ++s)
            for (int t = 0; t < 3; ++t)
                if (!m(s, t)) QVERIFY(r.weights(s, t) == 0);
        // mixWeights alone gives the same weights from the scores.
        QCOMPARE(text(mixWeights(spec, r.scores, m)), weights);
    }

    void rowsSumToOneExactly_data() {
        QTest::addColumn<MaskSpec>("mask");
        QTest::newRow("all") << MaskSpec::all();
        QTest::newRow("causal") << MaskSpec::causal();
        QTest::newRow("window(1)") << MaskSpec::window(1);
        QTest::newRow("blocks(3,4)") << MaskSpec::blocks({3, 4});
        QTest::newRow("dilated(1,2)") << MaskSpec::dilated(1, 2);
        QTest::newRow("global(1, causal_window(1))")
            << MaskSpec::global(1, MaskSpec::causalWindow(1));
    }
    void rowsSumToOneExactly() {
        QFETCH(MaskSpec, mask);
        const int n = 7;
        const Matrix<Rational> scores = exactData(n, n, 3);
        const BoolMatrix m = buildMask(mask, n);
        const Matrix<Rational> w = mixWeights(mixer(MixerSpec::Kind::SoftmaxLike), scores, m);
        for (int s = 0; s < n; ++s) {
            Rational total = 0;
            for (int t = 0; t < n; ++t) {
                if (m(s, t))
                    QVERIFY2(w(s, t) > 0, "allowed weight not positive");
                else
                    QVERIFY2(w(s, t) == 0, "blocked weight not exactly 0");
                total += w(s, t);
            }
            QCOMPARE(QString::fromStdString(rationalText(total)), QString("1"));
        }
        // raw does not normalise: it is the masked scores themselves.
        const Matrix<Rational> raw = mixWeights(mixer(MixerSpec::Kind::Raw), scores, m);
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t)
                QVERIFY(raw(s, t) == (m(s, t) ? scores(s, t) : Rational(0)));
        // softmax in double: sums are 1 up to rounding.
        const Eigen::MatrixXd wd =
            mixWeights(mixer(MixerSpec::Kind::Softmax), Eigen::MatrixXd(doubleData(n, n, 1)), m);
        for (int s = 0; s < n; ++s) {
            QVERIFY(std::abs(wd.row(s).sum() - 1) < 1e-14);
            for (int t = 0; t < n; ++t)
                QVERIFY(m(s, t) ? wd(s, t) > 0 : wd(s, t) == 0.0);
        }
    }

    void softmaxDoubleHand() {
        const double e = std::exp(1.0);
        Eigen::MatrixXd scores(3, 3);
        scores << 0, std::log(2.0), std::log(3.0), //
            1000, 1001, 5000,                      // key 2 blocked: must not enter the max
            -1000, -1001, 5000;
        BoolMatrix mask = BoolMatrix::Constant(3, 3, true);
        mask(1, 2) = mask(2, 2) = false;
        const Eigen::MatrixXd w = mixWeights(mixer(MixerSpec::Kind::Softmax), scores, mask);
        QVERIFY(w.allFinite());
        Eigen::MatrixXd expected(3, 3);
        expected << 1.0 / 6, 2.0 / 6, 3.0 / 6, //
            1 / (1 + e), e / (1 + e), 0,       //
            e / (1 + e), 1 / (1 + e), 0;
        QVERIFY2(maxAbs(w - expected) < 1e-15, qPrintable(QString::number(maxAbs(w - expected))));
        QCOMPARE(w(1, 2), 0.0);
        QCOMPARE(w(2, 2), 0.0);
    }

    // A weight below the smallest normal number is 0, not a subnormal (which would make every
    // later product with it take the processor's slow path); weights just above it are kept.
    void softmaxWeightsHaveNoSubnormals_data() {
        QTest::addColumn<bool>("single");
        QTest::newRow("float32") << true;
        QTest::newRow("float64") << false;
    }
    void softmaxWeightsHaveNoSubnormals() {
        QFETCH(bool, single);
        if (single)
            checkNoSubnormalWeights<float>();
        else
            checkNoSubnormalWeights<double>();
    }

    void softmaxDefaultScale() {
        // Q = K = [2 0; 0 2; 1 1], p = 2: S = Q·Kᵀ/sqrt(2).
        Eigen::MatrixXd q(3, 2);
        q << 2, 0, 0, 2, 1, 1;
        Eigen::MatrixXd v(3, 1);
        v << 1, 2, 4;
        const HeadResult<double> r = attendHead<double>(mixer(MixerSpec::Kind::Softmax), q, q, v,
                                                        nullptr, buildMask(MaskSpec::all(), 3));
        const double c = 1 / std::sqrt(2.0);
        const double raw[3][3] = {{4, 0, 2}, {0, 4, 2}, {2, 2, 2}};
        for (int s = 0; s < 3; ++s) {
            double total = 0, mixed = 0;
            for (int t = 0; t < 3; ++t)
                total += std::exp(c * raw[s][t]);
            for (int t = 0; t < 3; ++t) {
                QVERIFY(std::abs(r.scores(s, t) - c * raw[s][t]) < 1e-15);
                const double w = std::exp(c * raw[s][t]) / total;
                QVERIFY(std::abs(r.weights(s, t) - w) < 1e-15);
                mixed += w * v(t, 0);
            }
            QVERIFY(std::abs(r.output(s, 0) - mixed) < 1e-14);
        }
        QVERIFY(std::abs(r.weights(2, 0) - 1.0 / 3) < 1e-15); // equal scores, equal weights
    }

    void mixerScale() {
        QCOMPARE(attnlab::mixerScale<double>(mixer(MixerSpec::Kind::Softmax), 4), 0.5);
        QCOMPARE(attnlab::mixerScale<double>(mixer(MixerSpec::Kind::Softmax), 0), 1.0);
        QCOMPARE(attnlab::mixerScale<double>(mixer(MixerSpec::Kind::SoftmaxLike), 4), 1.0);
        QCOMPARE(attnlab::mixerScale<double>(mixer(MixerSpec::Kind::Raw), 9), 1.0);
        const Rational third =
            attnlab::mixerScale<Rational>(mixer(MixerSpec::Kind::Softmax, parseRational("1/3")), 4);
        QCOMPARE(QString::fromStdString(rationalText(third)), QString("1/3"));
        QCOMPARE(QString::fromStdString(
                     rationalText(attnlab::mixerScale<Rational>(mixer(MixerSpec::Kind::Raw), 4))),
                 QString("1"));
        // The default softmax scale 1/sqrt(p) has no exact value.
        const QString message =
            inputErrorOf([] { attnlab::mixerScale<Rational>(mixer(MixerSpec::Kind::Softmax), 4); });
        QVERIFY2(message.contains("precision exact") && message.contains("sqrt"),
                 qPrintable(message));
    }

    void checkPrecision_data() {
        QTest::addColumn<MixerSpec::Kind>("kind");
        QTest::addColumn<bool>("refusedInExact");
        QTest::newRow("softmax") << MixerSpec::Kind::Softmax << true;
        QTest::newRow("softmax_like") << MixerSpec::Kind::SoftmaxLike << false;
        QTest::newRow("raw") << MixerSpec::Kind::Raw << false;
        QTest::newRow("ssm") << MixerSpec::Kind::Ssm << false;
    }
    void checkPrecision() {
        QFETCH(MixerSpec::Kind, kind);
        QFETCH(bool, refusedInExact);
        const MixerSpec spec = mixer(kind);
        const QString exact = inputErrorOf([&] { spec.checkPrecision(Precision::Exact); });
        QCOMPARE(!exact.isNull(), refusedInExact);
        if (refusedInExact)
            QVERIFY2(exact.contains("precision exact") && exact.contains("exp"), qPrintable(exact));
        QVERIFY(inputErrorOf([&] { spec.checkPrecision(Precision::Float64); }).isNull());
        QVERIFY(inputErrorOf([&] { spec.checkPrecision(Precision::Float32); }).isNull());
    }

    void softmaxWeightsRefusedInExact() {
        const QString message = inputErrorOf([] {
            mixWeights(mixer(MixerSpec::Kind::Softmax, Rational(1)), rat("1 2; 3 4"),
                       buildMask(MaskSpec::all(), 2));
        });
        QVERIFY2(message.contains("precision exact") && message.contains("exp"),
                 qPrintable(message));
    }

    void allMaskedRow_data() {
        QTest::addColumn<MixerSpec::Kind>("kind");
        QTest::addColumn<int>("tile");
        QTest::newRow("softmax") << MixerSpec::Kind::Softmax << 0;
        QTest::newRow("softmax tiled") << MixerSpec::Kind::Softmax << 2;
        QTest::newRow("softmax_like") << MixerSpec::Kind::SoftmaxLike << 0;
        QTest::newRow("softmax_like tiled") << MixerSpec::Kind::SoftmaxLike << 3;
        QTest::newRow("raw") << MixerSpec::Kind::Raw << 0;
        QTest::newRow("raw tiled") << MixerSpec::Kind::Raw << 1;
    }
    void allMaskedRow() {
        QFETCH(MixerSpec::Kind, kind);
        QFETCH(int, tile);
        const BoolMatrix mask = buildMask(customMask({"1100", "0000", "0111", "0000"}), 4);
        MixerSpec spec = mixer(kind);
        spec.tile = tile;
        // Double for every kind.
        const Eigen::MatrixXd q = doubleData(4, 3, 1), k = doubleData(4, 3, 2),
                              v = doubleData(4, 2, 3);
        const HeadResult<double> r = attendHead<double>(spec, q, k, v, nullptr, mask);
        QVERIFY2(r.weights.allFinite() && r.output.allFinite(), "NaN or Inf in the result");
        for (int row : {1, 3}) {
            QVERIFY(r.weights.row(row).isZero(0));
            QVERIFY(r.output.row(row).isZero(0));
        }
        QVERIFY(!r.output.row(0).isZero(0));
        QCOMPARE(QList<int>(r.allMaskedRows.begin(), r.allMaskedRows.end()), (QList<int>{1, 3}));
        // Exact for the exp-free kinds.
        if (kind != MixerSpec::Kind::Softmax) {
            const HeadResult<Rational> e = attendHead<Rational>(
                spec, exactData(4, 3, 1), exactData(4, 3, 2), exactData(4, 2, 3), nullptr, mask);
            for (int row : {1, 3}) {
                for (int t = 0; t < 4; ++t)
                    QVERIFY(e.weights(row, t) == 0);
                for (int j = 0; j < 2; ++j)
                    QVERIFY(e.output(row, j) == 0);
            }
            QCOMPARE(QList<int>(e.allMaskedRows.begin(), e.allMaskedRows.end()),
                     (QList<int>{1, 3}));
        }
    }

    void describe_data() {
        QTest::addColumn<MixerSpec>("spec");
        QTest::addColumn<QString>("text");
        QTest::newRow("softmax") << mixer(MixerSpec::Kind::Softmax) << "softmax";
        QTest::newRow("softmax_like") << mixer(MixerSpec::Kind::SoftmaxLike) << "softmax_like";
        QTest::newRow("raw") << mixer(MixerSpec::Kind::Raw) << "raw";
        QTest::newRow("ssm causal") << ssm("1/2", false) << "ssm(a=1/2, causal)";
        QTest::newRow("ssm bidirectional") << ssm("1", true) << "ssm(a=1, bidirectional)";
    }
    void describe() {
        QFETCH(MixerSpec, spec);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(spec.describe()), text);
    }

private:
    // Row 0: scores whose exp is normal (kept, to within rounding), subnormal and 0. Row 1: two
    // equal maxima and an exp just above the smallest normal, which the division by the row's
    // sum (2) would make subnormal.
    template <class T>
    static void checkNoSubnormalWeights() {
        const T smallest = std::numeric_limits<T>::min();
        const T floor = std::log(smallest); // about -87.3 (float), -708.4 (double)
        Matrix<T> scores(2, 4);
        scores << 0, floor + 7, floor - 8, floor - 1000, //
            0, 0, floor + T(0.2), floor - 1000;
        const BoolMatrix mask = BoolMatrix::Constant(2, 4, true);
        const Matrix<T> w = mixWeights(mixer(MixerSpec::Kind::Softmax), scores, mask);
        for (Eigen::Index i = 0; i < w.size(); ++i)
            QVERIFY2(w(i) == T(0) || w(i) >= smallest, qPrintable(QString::number(double(w(i)))));
        const T kept = std::exp(floor + 7) * w(0, 0); // w(0, 0) = 1 / the row's sum
        QVERIFY(w(0, 1) >= smallest);
        QVERIFY(std::abs(w(0, 1) - kept) <= 4 * std::numeric_limits<T>::epsilon() * kept);
        QCOMPARE(w(0, 2), T(0));
        QCOMPARE(w(0, 3), T(0));
        QCOMPARE(w(1, 2), T(0)); // exp(floor + 0.2) / 2 is below the smallest normal
        QVERIFY(std::abs(w(1, 0) - T(0.5)) < 4 * std::numeric_limits<T>::epsilon());
    }
};

QTEST_GUILESS_MAIN(TestMixer)
#include "test_mixer.moc"
