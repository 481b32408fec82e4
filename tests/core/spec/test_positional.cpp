// SPDX-License-Identifier: GPL-3.0-or-later
// Positional information (properties.md §1.4): the absolute tables (polynomial, sinusoidal,
// learned), the ALiBi bias and slopes, the refusals of exact mode and the descriptions (RoPE in
// test_rope.cpp).
#include "core/base/error.h"
#include "core/positional_specs.h"
#include "core/spec/positional.h"
#include "core/test_support.h"

#include <QtTest>

#include <cmath>

using namespace attnlab;
using namespace attnlab::test;

Q_DECLARE_METATYPE(attnlab::PositionalSpec)

namespace {
// "[[a, b], [c, d]]" with exact entries in lowest terms.
QString bracketed(const Matrix<Rational>& m) {
    QStringList rows;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QStringList cells;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            cells << QString::fromStdString(rationalText(m(i, j)));
        rows << "[" + cells.join(", ") + "]";
    }
    return "[" + rows.join(", ") + "]";
}

Rational q(const char* s) {
    return parseRational(s);
}

} // namespace

class TestPositional : public QObject {
    Q_OBJECT
private slots:
    void polynomial_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("offset");
        QTest::addColumn<QString>("expected");
        QTest::newRow("offset 0") << 4 << 0 << "[[0, 0, 1], [1, 1, 1], [2, 4, 1], [3, 9, 1]]";
        QTest::newRow("offset 2") << 4 << 2 << "[[2, 4, 1], [3, 9, 1], [4, 16, 1], [5, 25, 1]]";
        QTest::newRow("offset -1") << 3 << -1 << "[[-1, 1, 1], [0, 0, 1], [1, 1, 1]]";
        QTest::newRow("one token") << 1 << 0 << "[[0, 0, 1]]";
    }
    void polynomial() {
        QFETCH(int, n);
        QFETCH(int, offset);
        QFETCH(QString, expected);
        const PositionalSpec spec = positional(PositionalSpec::Kind::Polynomial, offset);
        QCOMPARE(bracketed(absolutePositions<Rational>(spec, n, 3)), expected);
        // The same table in double.
        const Eigen::MatrixXd d = absolutePositions<double>(spec, n, 3);
        for (int i = 0; i < n; ++i) {
            QCOMPARE(d(i, 0), double(i + offset));
            QCOMPARE(d(i, 1), double((i + offset) * (i + offset)));
            QCOMPARE(d(i, 2), 1.0);
        }
    }

    void polynomialNeedsWidth3_data() {
        QTest::addColumn<int>("d");
        QTest::newRow("d = 2") << 2;
        QTest::newRow("d = 4") << 4;
        QTest::newRow("d = 1") << 1;
    }
    void polynomialNeedsWidth3() {
        QFETCH(int, d);
        const PositionalSpec spec = positional(PositionalSpec::Kind::Polynomial);
        const QString message = inputErrorOf([&] { absolutePositions<Rational>(spec, 3, d); });
        QVERIFY2(message.contains("needs d = 3") &&
                     message.contains("got d = " + QString::number(d)),
                 qPrintable(message));
    }

    void sinusoidal_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("offset");
        QTest::newRow("even width") << 5 << 6 << 0;
        QTest::newRow("odd width") << 4 << 5 << 0;
        QTest::newRow("offset") << 4 << 4 << 3;
        QTest::newRow("wide") << 3 << 16 << 100;
    }
    void sinusoidal() {
        QFETCH(int, n);
        QFETCH(int, d);
        QFETCH(int, offset);
        const PositionalSpec spec = positional(PositionalSpec::Kind::Sinusoidal, offset);
        const Eigen::MatrixXd pe = absolutePositions<double>(spec, n, d);
        QCOMPARE(pe.rows(), Eigen::Index(n));
        QCOMPARE(pe.cols(), Eigen::Index(d));
        for (int i = 0; i < n; ++i)
            for (int k = 0; 2 * k < d; ++k) {
                const double angle = (i + offset) / std::pow(10000.0, 2.0 * k / d);
                QVERIFY(std::abs(pe(i, 2 * k) - std::sin(angle)) <= 1e-15);
                if (2 * k + 1 < d) QVERIFY(std::abs(pe(i, 2 * k + 1) - std::cos(angle)) <= 1e-15);
            }
    }

    void sinusoidalKnownValues() {
        const Eigen::MatrixXd pe =
            absolutePositions<double>(positional(PositionalSpec::Kind::Sinusoidal), 2, 4);
        // Position 0: sin 0 = 0, cos 0 = 1.
        QCOMPARE(pe(0, 0), 0.0);
        QCOMPARE(pe(0, 1), 1.0);
        QCOMPARE(pe(0, 2), 0.0);
        QCOMPARE(pe(0, 3), 1.0);
        // Position 1: k = 0 has frequency 1, k = 1 has 10000^(-1/2) = 1/100.
        QCOMPARE(pe(1, 0), std::sin(1.0));
        QCOMPARE(pe(1, 1), std::cos(1.0));
        QVERIFY(std::abs(pe(1, 2) - std::sin(0.01)) < 1e-16);
        QVERIFY(std::abs(pe(1, 3) - std::cos(0.01)) < 1e-16);
        // float32 agrees to float precision.
        const Eigen::MatrixXf pf =
            absolutePositions<float>(positional(PositionalSpec::Kind::Sinusoidal), 2, 4);
        QVERIFY(std::abs(pf(1, 0) - float(std::sin(1.0))) < 1e-6f);
    }

    void sinusoidalRefusedInExact() {
        const QString message = inputErrorOf([] {
            absolutePositions<Rational>(positional(PositionalSpec::Kind::Sinusoidal), 2, 4);
        });
        QVERIFY2(message.contains("precision exact"), qPrintable(message));
    }

    void noTableForOtherKinds_data() {
        QTest::addColumn<PositionalSpec>("spec");
        QTest::newRow("none") << positional(PositionalSpec::Kind::None, 3);
        QTest::newRow("rope") << positional(PositionalSpec::Kind::Rope, 3);
        QTest::newRow("alibi") << positional(PositionalSpec::Kind::Alibi, 3);
    }
    void noTableForOtherKinds() {
        QFETCH(PositionalSpec, spec);
        const Matrix<Rational> pe = absolutePositions<Rational>(spec, 3, 4);
        QCOMPARE(bracketed(pe), QString("[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]"));
        QVERIFY(!spec.isAbsolute());
    }

    void learnedSeeded() {
        PositionalSpec spec = positional(PositionalSpec::Kind::Learned);
        spec.seed = 7;
        const Matrix<Rational> a = absolutePositions<Rational>(spec, 5, 3);
        QCOMPARE(bracketed(absolutePositions<Rational>(spec, 5, 3)), bracketed(a)); // deterministic
        // Exact mode draws small integers in [-3, 3], not all equal.
        bool varied = false;
        for (Eigen::Index i = 0; i < a.size(); ++i) {
            QVERIFY(a(i).get_den() == 1);
            QVERIFY(a(i) >= -3 && a(i) <= 3);
            if (a(i) != a(0)) varied = true;
        }
        QVERIFY(varied);
        // Another seed, another table.
        PositionalSpec other = spec;
        other.seed = 8;
        QVERIFY(bracketed(absolutePositions<Rational>(other, 5, 3)) != bracketed(a));
        // Offset c: rows c..c+n-1 of the same long table.
        PositionalSpec shifted = spec;
        shifted.offset = 2;
        QCOMPARE(bracketed(absolutePositions<Rational>(shifted, 3, 3)), bracketed(a.bottomRows(3)));
        // Double: deterministic, finite, not constant.
        const Eigen::MatrixXd d1 = absolutePositions<double>(spec, 5, 3);
        QVERIFY(d1 == absolutePositions<double>(spec, 5, 3));
        QVERIFY(d1.allFinite());
        QVERIFY(d1.maxCoeff() > d1.minCoeff());
        QVERIFY(absolutePositions<double>(shifted, 3, 3) == Eigen::MatrixXd(d1.bottomRows(3)));
    }

    void learnedGiven() {
        PositionalSpec spec = positional(PositionalSpec::Kind::Learned);
        spec.seeded = false;
        Matrix<Rational> table(4, 2);
        table << q("1/2"), 1, 2, q("-3/4"), 5, 6, 7, 8;
        spec.table = MatrixSpec::given(table);
        QCOMPARE(bracketed(absolutePositions<Rational>(spec, 3, 2)),
                 QString("[[1/2, 1], [2, -3/4], [5, 6]]"));
        spec.offset = 1;
        QCOMPARE(bracketed(absolutePositions<Rational>(spec, 3, 2)),
                 QString("[[2, -3/4], [5, 6], [7, 8]]"));
        QCOMPARE(absolutePositions<double>(spec, 1, 2)(0, 1), -0.75);
        // Too few rows for offset 1 + 4 tokens, and the wrong width.
        QString message = inputErrorOf([&] { absolutePositions<Rational>(spec, 4, 2); });
        QVERIFY2(message.contains("positional.table") && message.contains("needs at least 5 x 2"),
                 qPrintable(message));
        spec.offset = 0;
        message = inputErrorOf([&] { absolutePositions<Rational>(spec, 3, 3); });
        QVERIFY2(message.contains("positional.table") && message.contains("is 4 x 2"),
                 qPrintable(message));
    }

    void alibiGivenSlope() {
        PositionalSpec spec = positional(PositionalSpec::Kind::Alibi);
        spec.slopes = {q("1/2")};
        QCOMPARE(bracketed(alibiBias<Rational>(spec, 3, 0, 1)),
                 QString("[[0, -1/2, -1], [-1/2, 0, -1/2], [-1, -1/2, 0]]"));
        spec.causal = true;
        QCOMPARE(bracketed(alibiBias<Rational>(spec, 3, 0, 1)),
                 QString("[[0, 1/2, 1], [-1/2, 0, 1/2], [-1, -1/2, 0]]"));
        // Per-head slopes.
        spec.causal = false;
        spec.slopes = {q("1/2"), q("3")};
        QCOMPARE(bracketed(alibiBias<Rational>(spec, 2, 1, 2)), QString("[[0, -3], [-3, 0]]"));
        QCOMPARE(alibiBias<double>(spec, 2, 0, 2)(0, 1), -0.5);
        // Offsets do not change a relative bias.
        spec.offset = 9;
        QCOMPARE(bracketed(alibiBias<Rational>(spec, 2, 1, 2)), QString("[[0, -3], [-3, 0]]"));
    }

    void alibiSlopeCountMismatch() {
        PositionalSpec spec = positional(PositionalSpec::Kind::Alibi);
        spec.slopes = {q("1/2"), q("1/4")};
        const QString message = inputErrorOf([&] { alibiBias<Rational>(spec, 3, 0, 3); });
        QVERIFY2(message.contains("2 slopes given for 3 heads"), qPrintable(message));
    }

    void alibiDefaultSlopes_data() {
        QTest::addColumn<int>("heads");
        for (int h : {1, 2, 4, 8})
            QTest::newRow(qPrintable(QString("h = %1").arg(h))) << h;
    }
    void alibiDefaultSlopes() {
        QFETCH(int, heads);
        const PositionalSpec spec = positional(PositionalSpec::Kind::Alibi);
        for (int head = 0; head < heads; ++head) {
            const int k = head + 1;
            // m = 2^(-8k/h), exactly 1/2^(8k/h) here since h divides 8k.
            Rational m(1);
            m /= integerPower(Rational(2), 8 * k / heads);
            const Matrix<Rational> b = alibiBias<Rational>(spec, 4, head, heads);
            QCOMPARE(QString::fromStdString(rationalText(b(1, 0))),
                     QString::fromStdString(rationalText(Rational(-m))));
            QCOMPARE(QString::fromStdString(rationalText(b(0, 3))),
                     QString::fromStdString(rationalText(Rational(-3 * m))));
            QCOMPARE(alibiBias<double>(spec, 4, head, heads)(3, 1),
                     -2 * std::pow(2.0, -8.0 * k / heads));
        }
    }

    void alibiPaperSlopesForOtherHeadCounts() {
        // Not a power of two: the slopes of the power of two below, then every other slope of
        // twice that (the ALiBi paper's code, BLOOM): h = 3 gives 1/16, 1/256, 1/4.
        const PositionalSpec spec = positional(PositionalSpec::Kind::Alibi);
        QCOMPARE(alibiSlope<double>(spec, 0, 3), 0.0625);
        QCOMPARE(alibiSlope<double>(spec, 1, 3), 0.00390625);
        QCOMPARE(alibiSlope<double>(spec, 2, 3), 0.25);
        QCOMPARE(QString::fromStdString(rationalText(alibiSlope<Rational>(spec, 2, 3))),
                 QString("1/4"));
        // h = 6: 1/4, 1/16, 1/64, 1/256, then 2^-1, 2^-3 from h' = 8.
        const double six[] = {0.25, 0.0625, 1.0 / 64, 1.0 / 256, 0.5, 0.125};
        for (int head = 0; head < 6; ++head)
            QCOMPARE(alibiSlope<double>(spec, head, 6), six[head]);
        // h = 12: heads 8.. take 2^(-(2j+1)/2) from h' = 16, irrational: exact refuses them.
        QCOMPARE(alibiSlope<double>(spec, 8, 12), std::pow(2.0, -0.5));
        const QString message = inputErrorOf([&] { alibiBias<Rational>(spec, 3, 8, 12); });
        QVERIFY2(message.contains("precision exact") && message.contains("12 heads"),
                 qPrintable(message));
    }

    void checkPrecision_data() {
        QTest::addColumn<PositionalSpec>("spec");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("fragment"); // empty: accepted
        using K = PositionalSpec::Kind;
        const int exact = int(Precision::Exact), f64 = int(Precision::Float64),
                  f32 = int(Precision::Float32);
        PositionalSpec sloped = positional(K::Alibi);
        sloped.slopes = {q("1/3"), q("1/5"), q("1/7")};
        QTest::newRow("none exact") << positional(K::None) << exact << 1 << "";
        QTest::newRow("polynomial exact") << positional(K::Polynomial) << exact << 1 << "";
        QTest::newRow("learned exact") << positional(K::Learned) << exact << 1 << "";
        QTest::newRow("sinusoidal exact")
            << positional(K::Sinusoidal) << exact << 1 << "sin and cos";
        QTest::newRow("rope exact")
            << positional(K::Rope) << exact << 2 << "rope needs sin and cos";
        QTest::newRow("alibi h=1 exact") << positional(K::Alibi) << exact << 1 << "";
        QTest::newRow("alibi h=2 exact") << positional(K::Alibi) << exact << 2 << "";
        QTest::newRow("alibi h=4 exact") << positional(K::Alibi) << exact << 4 << "";
        QTest::newRow("alibi h=8 exact") << positional(K::Alibi) << exact << 8 << "";
        QTest::newRow("alibi h=3 exact") << positional(K::Alibi) << exact << 3 << "";
        QTest::newRow("alibi h=5 exact") << positional(K::Alibi) << exact << 5 << "";
        QTest::newRow("alibi h=12 exact") << positional(K::Alibi) << exact << 12 << "irrational";
        QTest::newRow("alibi h=16 exact") << positional(K::Alibi) << exact << 16 << "irrational";
        QTest::newRow("alibi h=3 slopes exact") << sloped << exact << 3 << "";
        QTest::newRow("sinusoidal float64") << positional(K::Sinusoidal) << f64 << 1 << "";
        QTest::newRow("rope float32") << positional(K::Rope) << f32 << 1 << "";
        QTest::newRow("alibi h=3 float64") << positional(K::Alibi) << f64 << 3 << "";
    }
    void checkPrecision() {
        QFETCH(PositionalSpec, spec);
        QFETCH(int, precision);
        QFETCH(int, heads);
        QFETCH(QString, fragment);
        const QString message =
            inputErrorOf([&] { spec.checkPrecision(Precision(precision), heads); });
        if (fragment.isEmpty()) {
            QVERIFY2(message.isNull(), qPrintable(message));
        } else {
            QVERIFY2(!message.isNull(), "no InputError");
            QVERIFY2(message.contains("precision exact"), qPrintable(message));
            QVERIFY2(message.contains(fragment), qPrintable(message));
        }
    }

    void describe() {
        QCOMPARE(QString::fromStdString(positional(PositionalSpec::Kind::Polynomial).describe()),
                 QString("polynomial"));
        QCOMPARE(QString::fromStdString(positional(PositionalSpec::Kind::Rope, 2).describe()),
                 QString("rope, offset 2"));
        PositionalSpec alibi = positional(PositionalSpec::Kind::Alibi);
        alibi.causal = true;
        QCOMPARE(QString::fromStdString(alibi.describe()), QString("alibi (causal)"));
        QVERIFY(positional(PositionalSpec::Kind::Learned).isAbsolute());
        QVERIFY(alibi.isRelative());
        QVERIFY(!positional(PositionalSpec::Kind::Sinusoidal).isRelative());
    }

    void learnedNegativeOffsetRefused_data() {
        QTest::addColumn<bool>("seeded");
        QTest::addColumn<int>("offset");
        QTest::newRow("seeded, offset -1") << true << -1;
        QTest::newRow("seeded, offset -3") << true << -3;
        QTest::newRow("given, offset -1") << false << -1;
    }
    void learnedNegativeOffsetRefused() {
        // A learned table has rows for positions 0, 1, ...; a negative position has none and
        // must be refused, not read out of bounds (last in this class: the core crashes here).
        QFETCH(bool, seeded);
        QFETCH(int, offset);
        PositionalSpec spec = positional(PositionalSpec::Kind::Learned, offset);
        spec.seeded = seeded;
        spec.table = MatrixSpec::given(Matrix<Rational>::Ones(8, 2));
        const QString message = inputErrorOf([&] { absolutePositions<Rational>(spec, 2, 2); });
        QVERIFY2(!message.isNull(), "no InputError for a negative position");
    }
};

QTEST_GUILESS_MAIN(TestPositional)
#include "test_positional.moc"
