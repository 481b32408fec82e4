// SPDX-License-Identifier: GPL-3.0-or-later
// RoPE (properties.md §1.4): the rotation by hand, norms kept, scores that depend only on the
// relative position, exact mode refused, the half (rotate_half) style as the interleaved one with
// coordinates reordered, partial rotary dimensions and the linear and llama3 scaling rules.
#include "core/base/error.h"
#include "core/positional_specs.h"
#include "core/spec/positional.h"
#include "core/test_support.h"

#include <QtTest>

#include <cmath>

using namespace attnlab;
using namespace attnlab::test;

namespace {
// Deterministic "random" doubles in [-1, 1] for the RoPE checks.
Eigen::MatrixXd pseudoRandom(int rows, int cols, int seed) {
    Eigen::MatrixXd m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = std::sin(1.7 * (seed + 1) * (i * cols + j + 1));
    return m;
}
} // namespace

class TestRope : public QObject {
    Q_OBJECT
private slots:
    void ropeHandValues() {
        // p = 2: θ_0 = 1, row i turns (1, 0) by angle i.
        Eigen::MatrixXd x(3, 2);
        x << 1, 0, 1, 0, 0, 2;
        applyRope(x, rope(10000), 0);
        QCOMPARE(x(0, 0), 1.0);
        QCOMPARE(x(0, 1), 0.0);
        QCOMPARE(x(1, 0), std::cos(1.0));
        QCOMPARE(x(1, 1), std::sin(1.0));
        QVERIFY(std::abs(x(2, 0) - -2 * std::sin(2.0)) < 1e-15);
        QVERIFY(std::abs(x(2, 1) - 2 * std::cos(2.0)) < 1e-15);
        // p = 4, base 100: θ_1 = 100^(-1/2) = 1/10; with offset 1, row 1 is at position 2.
        Eigen::MatrixXd y = Eigen::MatrixXd::Zero(2, 4);
        y(1, 2) = 1;
        applyRope(y, rope(100), 1);
        QVERIFY(std::abs(y(1, 2) - std::cos(0.2)) < 1e-15);
        QVERIFY(std::abs(y(1, 3) - std::sin(0.2)) < 1e-15);
        QCOMPARE(y(1, 0), 0.0);
        QCOMPARE(y(1, 1), 0.0);
    }

    void ropePreservesNorms_data() {
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("offset");
        QTest::newRow("p = 6") << 6 << 0;
        QTest::newRow("p = 5 (odd)") << 5 << 0;
        QTest::newRow("p = 8, offset 11") << 8 << 11;
    }
    void ropePreservesNorms() {
        QFETCH(int, p);
        QFETCH(int, offset);
        const Eigen::MatrixXd x = pseudoRandom(7, p, p);
        Eigen::MatrixXd r = x;
        applyRope(r, rope(10000), offset);
        QVERIFY(!r.isApprox(x)); // it did rotate
        for (int i = 0; i < x.rows(); ++i) {
            QVERIFY(std::abs(r.row(i).norm() - x.row(i).norm()) < 1e-12);
            for (int k = 0; 2 * k + 1 < p; ++k) // each pair keeps its own norm
                QVERIFY(std::abs(std::hypot(r(i, 2 * k), r(i, 2 * k + 1)) -
                                 std::hypot(x(i, 2 * k), x(i, 2 * k + 1))) < 1e-12);
            if (p % 2 == 1) QCOMPARE(r(i, p - 1), x(i, p - 1)); // odd last coordinate stays
        }
    }

    void ropeScoresAreRelative_data() {
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("offset");
        QTest::newRow("p = 4") << 4 << 0;
        QTest::newRow("p = 6, offset 5") << 6 << 5;
        QTest::newRow("p = 7 (odd), offset -3") << 7 << -3;
    }
    void ropeScoresAreRelative() {
        QFETCH(int, p);
        QFETCH(int, offset);
        const int n = 6;
        const Eigen::RowVectorXd q = pseudoRandom(1, p, 1), k = pseudoRandom(1, p, 2);
        // Row i holds R_i q (resp. R_i k), so S[i][j] = (R_i q)·(R_j k).
        Eigen::MatrixXd rq = q.replicate(n, 1), rk = k.replicate(n, 1);
        applyRope(rq, rope(10000), offset);
        applyRope(rk, rope(10000), offset);
        const Eigen::MatrixXd s = rq * rk.transpose();
        // Unrotated scores, to show the rotation matters at all.
        bool changed = false;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                // qᵀ R_{j-i} k: k rotated by position j - i.
                Eigen::MatrixXd kRel = k;
                applyRope(kRel, rope(10000), j - i);
                const double relative = q.dot(kRel.row(0));
                QVERIFY2(std::abs(s(i, j) - relative) < 1e-12,
                         qPrintable(QString("S[%1][%2] = %3, q·R_{j-i}k = %4")
                                        .arg(i)
                                        .arg(j)
                                        .arg(s(i, j), 0, 'g', 17)
                                        .arg(relative, 0, 'g', 17)));
                if (i + 1 < n && j + 1 < n) QVERIFY(std::abs(s(i, j) - s(i + 1, j + 1)) < 1e-12);
                if (std::abs(s(i, j) - q.dot(k)) > 1e-6) changed = true;
            }
        QVERIFY(changed);
    }

    void ropeRefusedInExact() {
        Matrix<Rational> x = Matrix<Rational>::Ones(2, 2);
        const QString message = inputErrorOf([&] { applyRope(x, rope(10000), 0); });
        QVERIFY2(message.contains("precision exact") && message.contains("rope"),
                 qPrintable(message));
    }

    void ropeHalfStyleIsInterleavedWithCoordinatesReordered() {
        // rotate_half pairs (k, k + p/2) with frequency k, as interleaved pairs (2k, 2k+1).
        const int p = 8;
        const Eigen::MatrixXd x = pseudoRandom(5, p, 3);
        PositionalSpec half = rope(10000);
        half.style = PositionalSpec::RopeStyle::Half;
        Eigen::MatrixXd h = x, interleaved(5, p);
        for (int k = 0; k < p / 2; ++k) {
            interleaved.col(2 * k) = x.col(k);
            interleaved.col(2 * k + 1) = x.col(k + p / 2);
        }
        applyRope(h, half, 3);
        applyRope(interleaved, rope(10000), 3);
        for (int k = 0; k < p / 2; ++k) {
            QVERIFY((h.col(k) - interleaved.col(2 * k)).cwiseAbs().maxCoeff() < 1e-15);
            QVERIFY((h.col(k + p / 2) - interleaved.col(2 * k + 1)).cwiseAbs().maxCoeff() < 1e-15);
        }
    }

    void ropeRotaryDimKeepsTheRest() {
        // rotary_dim 4 of p = 8 (NeoX's rotary_pct 0.5): coordinates 4..7 pass unchanged, the
        // first four rotate as a head of width 4 would.
        const Eigen::MatrixXd x = pseudoRandom(4, 8, 5);
        PositionalSpec partial = rope(10000);
        partial.style = PositionalSpec::RopeStyle::Half;
        partial.rotaryDim = 4;
        Eigen::MatrixXd r = x, front = x.leftCols(4);
        applyRope(r, partial, 2);
        partial.rotaryDim = 0;
        applyRope(front, partial, 2);
        QVERIFY(r.rightCols(4) == x.rightCols(4));
        QVERIFY((r.leftCols(4) - front).cwiseAbs().maxCoeff() < 1e-15);
        partial.rotaryDim = 10;
        const QString message = inputErrorOf([&] { applyRope(r, partial, 0); });
        QVERIFY2(message.contains("rotary_dim") && message.contains("wider than a head"),
                 qPrintable(message));
    }

    void ropeScaling() {
        PositionalSpec spec = rope(10000);
        const std::vector<double> plain = ropeFrequencies(spec, 8);
        QCOMPARE(int(plain.size()), 4);
        QCOMPARE(plain[1], std::pow(10000.0, -0.25));
        // linear: every frequency divided by the factor (positions divided by it).
        spec.scaling.kind = RopeScaling::Kind::Linear;
        spec.scaling.factor = 2;
        const std::vector<double> linear = ropeFrequencies(spec, 8);
        for (std::size_t k = 0; k < plain.size(); ++k)
            QCOMPARE(linear[k], plain[k] / 2);
        // llama3 (factor 8, low 1, high 4, original context 16): wavelengths 2π/f are
        // 6.28, 62.8, 628, 6283; above 16 (16/low) divided by 8, below 4 (16/high) kept.
        spec.scaling = {RopeScaling::Kind::Llama3, 8, 1, 4, 16};
        const std::vector<double> llama3 = ropeFrequencies(spec, 8);
        QCOMPARE(llama3[1], plain[1] / 8);
        QCOMPARE(llama3[3], plain[3] / 8);
        // Wavelength 6.28 lies between 4 and 16: blended with smooth = (16/6.28 - 1) / 3.
        const double smooth = (16 / (2 * M_PI / plain[0]) - 1) / 3;
        QVERIFY(std::abs(llama3[0] - ((1 - smooth) * plain[0] / 8 + smooth * plain[0])) < 1e-15);
    }
};

QTEST_GUILESS_MAIN(TestRope)
#include "test_rope.moc"
