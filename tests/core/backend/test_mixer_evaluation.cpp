// SPDX-License-Identifier: GPL-3.0-or-later
// Mixers evaluated another way (properties.md §2.8-2.9): the tiled (flash) output equals the
// untiled one for every tile size, exactly in exact mode and to rounding in double; the ssm scan
// gives weights·V = recurrent = chunkwise for every chunk.
#include "core/base/error.h"
#include "core/mixer_test_data.h"

#include <QtTest>

using namespace attnlab;
using namespace attnlab::test;

class TestMixerEvaluation : public QObject {
    Q_OBJECT
private slots:
    void tilingExact_data() {
        QTest::addColumn<MixerSpec::Kind>("kind");
        QTest::addColumn<MaskSpec>("mask");
        QTest::addColumn<bool>("withBias");
        for (auto kind : {MixerSpec::Kind::SoftmaxLike, MixerSpec::Kind::Raw}) {
            const QString name = QString::fromStdString(mixerKindName(kind));
            const auto row = [&](const char* what) { return (name + " " + what).toUtf8(); };
            QTest::newRow(row("all").constData()) << kind << MaskSpec::all() << false;
            QTest::newRow(row("causal").constData()) << kind << MaskSpec::causal() << false;
            QTest::newRow(row("window(1)").constData()) << kind << MaskSpec::window(1) << false;
            QTest::newRow(row("blocks(3,4)").constData())
                << kind << MaskSpec::blocks({3, 4}) << false;
            QTest::newRow(row("dilated(1,2)").constData())
                << kind << MaskSpec::dilated(1, 2) << false;
            QTest::newRow(row("all-masked row").constData())
                << kind
                << customMask({"1000000", "0000000", "1110001", "0001000", "0000000", "1111111",
                               "0000011"})
                << false;
            QTest::newRow(row("causal + bias").constData()) << kind << MaskSpec::causal() << true;
            QTest::newRow(row("all + bias").constData()) << kind << MaskSpec::all() << true;
        }
    }
    void tilingExact() {
        QFETCH(MixerSpec::Kind, kind);
        QFETCH(MaskSpec, mask);
        QFETCH(bool, withBias);
        const int n = 7;
        const Matrix<Rational> q = exactData(n, 3, 1), k = exactData(n, 3, 2),
                               v = exactData(n, 2, 3);
        const Matrix<Rational> bias = exactBias(n);
        const Matrix<Rational>* b = withBias ? &bias : nullptr;
        const BoolMatrix m = buildMask(mask, n);
        MixerSpec spec = mixer(kind, parseRational("2/3"));
        const HeadResult<Rational> untiled = attendHead<Rational>(spec, q, k, v, b, m);
        const QString expected = text(untiled.weights * v);
        QCOMPARE(text(untiled.output), expected);
        for (int tile = 1; tile <= n + 2; ++tile) { // ragged last tiles for 2..6, one tile for >= 7
            QCOMPARE(text(tiledOutput<Rational>(spec, q, k, v, b, m, tile)), expected);
            spec.tile = tile; // attendHead takes the tiled path when the spec asks for it
            QCOMPARE(text(attendHead<Rational>(spec, q, k, v, b, m).output), expected);
            spec.tile = 0;
        }
    }

    void tilingSoftmaxDouble_data() {
        QTest::addColumn<MaskSpec>("mask");
        QTest::addColumn<bool>("withBias");
        QTest::addColumn<int>("keyOrder"); // 0: generic, 1: increasing scores, 2: decreasing
        QTest::newRow("causal") << MaskSpec::causal() << false << 0;
        QTest::newRow("window(2)") << MaskSpec::window(2) << false << 0;
        QTest::newRow("window(1) + bias") << MaskSpec::window(1) << true << 0;
        QTest::newRow("causal + bias") << MaskSpec::causal() << true << 0;
        QTest::newRow("all, increasing scores (max rescaled)") << MaskSpec::all() << false << 1;
        QTest::newRow("all, decreasing scores") << MaskSpec::all() << false << 2;
        QTest::newRow("causal, increasing scores") << MaskSpec::causal() << false << 1;
    }
    void tilingSoftmaxDouble() {
        QFETCH(MaskSpec, mask);
        QFETCH(bool, withBias);
        QFETCH(int, keyOrder);
        const int n = 7;
        Eigen::MatrixXd q = doubleData(n, 3, 4), k = doubleData(n, 3, 5);
        const Eigen::MatrixXd v = doubleData(n, 2, 6);
        if (keyOrder != 0) { // scores grow (or shrink) with the key: the running max moves
            q = Eigen::MatrixXd::Ones(n, 3);
            for (int t = 0; t < n; ++t)
                k.row(t).setConstant(keyOrder == 1 ? 2.0 * t : -2.0 * t);
        }
        Eigen::MatrixXd bias(n, n);
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t)
                bias(s, t) = -0.75 * std::abs(s - t);
        const Eigen::MatrixXd* b = withBias ? &bias : nullptr;
        const BoolMatrix m = buildMask(mask, n);
        const MixerSpec spec = mixer(MixerSpec::Kind::Softmax);
        const HeadResult<double> untiled = attendHead<double>(spec, q, k, v, b, m);
        const Eigen::MatrixXd expected = untiled.weights * v;
        const double tolerance = 1e-12 * std::max(1.0, maxAbs(expected));
        for (int tile = 1; tile <= n + 1; ++tile) {
            const Eigen::MatrixXd tiled = tiledOutput<double>(spec, q, k, v, b, m, tile);
            QVERIFY(tiled.allFinite());
            const double error = maxAbs(tiled - expected);
            QVERIFY2(error <= tolerance,
                     qPrintable(QString("tile %1: max error %2").arg(tile).arg(error, 0, 'g', 3)));
        }
    }

    void tileMustBePositive() {
        const Matrix<Rational> x = exactData(3, 2, 1);
        const QString message = inputErrorOf([&] {
            tiledOutput<Rational>(mixer(MixerSpec::Kind::Raw), x, x, x, nullptr,
                                  buildMask(MaskSpec::all(), 3), 0);
        });
        QVERIFY2(message.contains("tile"), qPrintable(message));
    }

    void ssmHand_data() {
        QTest::addColumn<bool>("bidirectional");
        QTest::addColumn<QString>("weights");
        QTest::addColumn<QString>("output");
        // Q = [1; 2; 3], K = [1; 1; 2], V = [1; 2; 3], a = 1/2.
        QTest::newRow("causal") << false << "1 0 0; 1 2 0; 3/4 3/2 6"
                                << "1; 5; 87/4";
        QTest::newRow("bidirectional") << true << "2 1/2 1/2; 1 4 2; 3/4 3/2 12"
                                       << "9/2; 15; 159/4";
    }
    void ssmHand() {
        QFETCH(bool, bidirectional);
        QFETCH(QString, weights);
        QFETCH(QString, output);
        const Matrix<Rational> q = rat("1; 2; 3"), k = rat("1; 1; 2"), v = rat("1; 2; 3");
        const MixerSpec spec = ssm("1/2", bidirectional);
        QCOMPARE(text(ssmWeights(spec, q, k)), weights);
        for (int chunk = 0; chunk <= 4; ++chunk)
            QCOMPARE(text(ssmScan(spec, q, k, v, chunk)), output);
        MixerSpec chunked = spec;
        chunked.chunk = 2;
        // ssm ignores the mask: an all-false mask changes nothing and reports no rows.
        const HeadResult<Rational> r =
            attendHead<Rational>(chunked, q, k, v, nullptr, buildMask(MaskSpec::none(), 3));
        QCOMPARE(text(r.scores), QString("1 1 2; 2 2 4; 3 3 6"));
        QCOMPARE(text(r.weights), weights);
        QCOMPARE(text(r.output), output);
        QVERIFY(r.allMaskedRows.empty());
    }

    void ssmForms_data() {
        QTest::addColumn<QString>("a");
        QTest::addColumn<bool>("bidirectional");
        for (const char* a : {"1/2", "1", "0", "-2/3", "3"})
            for (bool bidirectional : {false, true})
                QTest::newRow(qPrintable(
                    QString("a = %1, %2").arg(a, bidirectional ? "bidirectional" : "causal")))
                    << QString(a) << bidirectional;
    }
    void ssmForms() {
        QFETCH(QString, a);
        QFETCH(bool, bidirectional);
        const int n = 7;
        const Matrix<Rational> q = exactData(n, 3, 1), k = exactData(n, 3, 2),
                               v = exactData(n, 2, 3);
        const MixerSpec spec = ssm(qPrintable(a), bidirectional);
        const QString expected = text(ssmWeights(spec, q, k) * v);
        QCOMPARE(text(ssmScan(spec, q, k, v, 0)), expected); // recurrent
        for (int chunk = 1; chunk <= n + 1; ++chunk)
            QVERIFY2(text(ssmScan(spec, q, k, v, chunk)) == expected,
                     qPrintable(QString("chunk %1: %2 vs %3")
                                    .arg(chunk)
                                    .arg(text(ssmScan(spec, q, k, v, chunk)), expected)));
    }

    void ssmWeightsStructure() {
        const int n = 5;
        const Matrix<Rational> q = exactData(n, 2, 1), k = exactData(n, 2, 2);
        const Matrix<Rational> qk = q * k.transpose();
        const Matrix<Rational> causal = ssmWeights(ssm("1/2", false), q, k);
        const Matrix<Rational> both = ssmWeights(ssm("1/2", true), q, k);
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t) {
                const Rational decay = integerPower(Rational(1, 2), std::abs(s - t));
                QVERIFY(causal(s, t) == (t <= s ? Rational(decay * qk(s, t)) : Rational(0)));
                QVERIFY(both(s, t) == Rational((s == t ? 2 : 1) * decay * qk(s, t)));
            }
    }
};

QTEST_GUILESS_MAIN(TestMixerEvaluation)
#include "test_mixer_evaluation.moc"
