// SPDX-License-Identifier: GPL-3.0-or-later
// Permutations: validation of bijections, the algebra (compose, inverse), cycle notation, seeded
// random draws, and the action on matrices with (P_σ X)[i] = X[σ(i)].
#include "core/base/error.h"
#include "core/spec/permutation.h"
#include "core/test_support.h"

#include <QtTest>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

using namespace attnlab;
using namespace attnlab::test;

namespace attnlab {
// Readable QCOMPARE failures for permutations (found by argument-dependent lookup).
char* toString(const Permutation& p) {
    QStringList parts;
    for (int x : p.images())
        parts << QString::number(x);
    return qstrdup(qPrintable("[" + parts.join(", ") + "]"));
}
} // namespace attnlab

namespace {
QString imagesText(const std::vector<int>& v) {
    QStringList parts;
    for (int x : v)
        parts << QString::number(x);
    return "[" + parts.join(", ") + "]";
}
QString imagesText(const Permutation& p) {
    return imagesText(p.images());
}

bool isBijection(const std::vector<int>& images) {
    std::vector<int> sorted = images;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != int(i)) return false;
    return true;
}
} // namespace

class TestPermutation : public QObject {
    Q_OBJECT
private slots:
    void constructionAccepts() {
        const Permutation p({2, 0, 1});
        QCOMPARE(p.size(), 3);
        QCOMPARE(p(0), 2);
        QCOMPARE(p(1), 0);
        QCOMPARE(p(2), 1);
        QVERIFY(!p.isIdentity());
        QCOMPARE(Permutation().size(), 0);
        QVERIFY(Permutation().isIdentity());
    }

    void constructionRefuses_data() {
        QTest::addColumn<std::vector<int>>("images");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("repeat") << std::vector<int>{0, 0} << "0 appears twice";
        QTest::newRow("late repeat") << std::vector<int>{1, 2, 0, 1} << "1 appears twice";
        QTest::newRow("too large") << std::vector<int>{0, 2} << "entry 1 is 2, outside 0..1";
        QTest::newRow("negative") << std::vector<int>{-1, 0} << "entry 0 is -1, outside 0..1";
        QTest::newRow("size as image") << std::vector<int>{3, 0, 1} << "outside 0..2";
    }
    void constructionRefuses() {
        QFETCH(std::vector<int>, images);
        QFETCH(QString, fragment);
        const QString message = inputErrorOf([&] { Permutation p(images); });
        QVERIFY2(!message.isNull(), "no InputError");
        QVERIFY2(message.contains(fragment), qPrintable(message));
    }

    void identity_data() {
        QTest::addColumn<int>("n");
        for (int n : {0, 1, 2, 5})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void identity() {
        QFETCH(int, n);
        const Permutation id = Permutation::identity(n);
        QCOMPARE(id.size(), n);
        for (int i = 0; i < n; ++i)
            QCOMPARE(id(i), i);
        QVERIFY(id.isIdentity());
        QCOMPARE(QString::fromStdString(id.cycles()), QString("()"));
    }

    void reverse() {
        QCOMPARE(imagesText(Permutation::reverse(5)), QString("[4, 3, 2, 1, 0]"));
        QCOMPARE(imagesText(Permutation::reverse(4)), QString("[3, 2, 1, 0]"));
        QVERIFY(Permutation::reverse(6).compose(Permutation::reverse(6)).isIdentity());
        QVERIFY(Permutation::reverse(1).isIdentity());
    }

    void transposition() {
        QCOMPARE(imagesText(Permutation::transposition(4, 1, 3)), QString("[0, 3, 2, 1]"));
        QVERIFY(Permutation::transposition(3, 2, 2).isIdentity());
    }

    void compose() {
        const Permutation sigma({1, 2, 0}), tau({0, 2, 1});
        // (σ∘τ)(i) = σ(τ(i)): σ(0) = 1, σ(2) = 0, σ(1) = 2.
        QCOMPARE(imagesText(sigma.compose(tau)), QString("[1, 0, 2]"));
        // (τ∘σ)(i) = τ(σ(i)): τ(1) = 2, τ(2) = 1, τ(0) = 0. Composition does not commute.
        QCOMPARE(imagesText(tau.compose(sigma)), QString("[2, 1, 0]"));
        QCOMPARE(sigma.compose(Permutation::identity(3)), sigma);
        QCOMPARE(Permutation::identity(3).compose(sigma), sigma);
    }

    void composeRefusesSizeMismatch() {
        const QString message =
            inputErrorOf([] { Permutation::identity(3).compose(Permutation::identity(4)); });
        QVERIFY2(message.contains("sizes 3 and 4"), qPrintable(message));
    }

    void inverse() {
        QCOMPARE(imagesText(Permutation({1, 2, 0}).inverse()), QString("[2, 0, 1]"));
        QCOMPARE(imagesText(Permutation({2, 3, 0, 1}).inverse()), QString("[2, 3, 0, 1]"));
        for (int n = 1; n <= 8; ++n)
            for (std::uint64_t seed = 0; seed < 5; ++seed) {
                const Permutation sigma = Permutation::random(n, seed);
                QVERIFY(sigma.compose(sigma.inverse()).isIdentity());
                QVERIFY(sigma.inverse().compose(sigma).isIdentity());
                QCOMPARE(sigma.inverse().inverse(), sigma);
            }
    }

    void cyclesPrint_data() {
        QTest::addColumn<std::vector<int>>("images");
        QTest::addColumn<QString>("cycles");
        QTest::newRow("two swaps") << std::vector<int>{2, 3, 0, 1} << "(0 2)(1 3)";
        QTest::newRow("identity") << std::vector<int>{0, 1, 2} << "()";
        QTest::newRow("3-cycle") << std::vector<int>{1, 2, 0} << "(0 1 2)";
        QTest::newRow("fixed points skipped") << std::vector<int>{0, 2, 1, 3} << "(1 2)";
        QTest::newRow("mixed") << std::vector<int>{1, 0, 3, 4, 2} << "(0 1)(2 3 4)";
        QTest::newRow("starts at smallest") << std::vector<int>{3, 0, 1, 2} << "(0 3 2 1)";
    }
    void cyclesPrint() {
        QFETCH(std::vector<int>, images);
        QFETCH(QString, cycles);
        const Permutation p(images);
        QCOMPARE(QString::fromStdString(p.cycles()), cycles);
        QCOMPARE(Permutation::fromCycles(cycles.toStdString(), p.size()), p);
    }

    void cyclesParse_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("n");
        QTest::addColumn<std::vector<int>>("images");
        QTest::newRow("two swaps") << "(0 2)(1 3)" << 4 << std::vector<int>{2, 3, 0, 1};
        QTest::newRow("spaces and commas")
            << " ( 0, 2 ) (1 3) " << 4 << std::vector<int>{2, 3, 0, 1};
        QTest::newRow("empty cycle") << "()" << 3 << std::vector<int>{0, 1, 2};
        QTest::newRow("empty text") << "" << 3 << std::vector<int>{0, 1, 2};
        QTest::newRow("singleton") << "(1)" << 3 << std::vector<int>{0, 1, 2};
        QTest::newRow("3-cycle") << "(2 0 1)" << 3 << std::vector<int>{1, 2, 0};
    }
    void cyclesParse() {
        QFETCH(QString, text);
        QFETCH(int, n);
        QFETCH(std::vector<int>, images);
        QCOMPARE(imagesText(Permutation::fromCycles(text.toStdString(), n)), imagesText(images));
    }

    void cyclesRoundTripRandom() {
        for (int n = 1; n <= 9; ++n)
            for (std::uint64_t seed = 0; seed < 10; ++seed) {
                const Permutation p = Permutation::random(n, seed);
                QCOMPARE(Permutation::fromCycles(p.cycles(), n), p);
            }
    }

    void cyclesRefuse_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unclosed") << "(0 2"
                                  << "missing ')'";
        QTest::newRow("no open") << "0 2)"
                                 << "expected '('";
        QTest::newRow("extra close") << "(0 1))"
                                     << "expected '('";
        QTest::newRow("outside") << "(0 4)"
                                 << "4 is outside 0..3";
        QTest::newRow("repeat across cycles") << "(0 1)(1 2)"
                                              << "1 appears twice";
        QTest::newRow("repeat in cycle") << "(1 1)"
                                         << "1 appears twice";
        QTest::newRow("letter") << "(a)"
                                << "expected an index";
        QTest::newRow("negative") << "(0 -1)"
                                  << "expected an index";
        QTest::newRow("huge index") << "(0 12345678901)"
                                    << "expected an index";
    }
    void cyclesRefuse() {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        const QString message =
            inputErrorOf([&] { Permutation::fromCycles(text.toStdString(), 4); });
        QVERIFY2(!message.isNull(), "no InputError");
        QVERIFY2(message.contains("cycle notation '" + text + "'"), qPrintable(message));
        QVERIFY2(message.contains(fragment), qPrintable(message));
    }

    void controlCharactersInARefusedTextAreWrittenOut() {
        // A NUL would end the message where it is printed, an escape would reach the terminal.
        const QString message = inputErrorOf(
            [&] { Permutation::fromCycles(std::string("(0 2)\0(1\x1b[2J 2)", 15), 4); });
        QCOMPARE(message,
                 QString("cycle notation '(0 2)\\x00(1\\x1B[2J 2)': expected '(' at position 5"));
    }

    void random() {
        for (int n : {0, 1, 2, 7, 20}) {
            const Permutation a = Permutation::random(n, 42), b = Permutation::random(n, 42);
            QCOMPARE(a, b);
            QCOMPARE(a.size(), n);
            QVERIFY(isBijection(a.images()));
        }
        // Different seeds draw different permutations (not all 20 seeds can agree on n = 8).
        std::set<std::vector<int>> drawn;
        for (std::uint64_t seed = 0; seed < 20; ++seed)
            drawn.insert(Permutation::random(8, seed).images());
        QVERIFY(drawn.size() > 10);
        // Every permutation of 3 elements is reachable.
        std::set<std::vector<int>> all3;
        for (std::uint64_t seed = 0; seed < 300; ++seed)
            all3.insert(Permutation::random(3, seed).images());
        QCOMPARE(int(all3.size()), 6);
    }

    void applyRows() {
        Matrix<Rational> x(3, 2);
        x << 0, 1, 10, 11, 20, 21;
        const Permutation sigma({2, 0, 1});
        Matrix<Rational> expected(3, 2);
        expected << 20, 21, 0, 1, 10, 11; // row i is X[σ(i)]
        QVERIFY(sigma.applyRows(x) == expected);

        const Eigen::MatrixXd xd = toDouble(x);
        QVERIFY(sigma.applyRows<double>(xd) == toDouble(expected));
    }

    void applyRowsComposes() {
        // (P_τ (P_σ X))[i] = (P_σ X)[τ(i)] = X[σ(τ(i))], so P_τ P_σ = P_{σ∘τ}.
        Matrix<Rational> x(5, 2);
        for (int i = 0; i < 5; ++i)
            x.row(i) << i, 100 + i;
        for (std::uint64_t seed = 0; seed < 10; ++seed) {
            const Permutation sigma = Permutation::random(5, seed),
                              tau = Permutation::random(5, seed + 100);
            QVERIFY(tau.applyRows(sigma.applyRows(x)) == sigma.compose(tau).applyRows(x));
            QVERIFY(sigma.inverse().applyRows(sigma.applyRows(x)) == x);
        }
    }

    void applyBoth() {
        Matrix<Rational> a(3, 3);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                a(i, j) = 10 * i + j;
        const Permutation sigma({2, 0, 1});
        Matrix<Rational> expected(3, 3);
        expected << 22, 20, 21, //
            2, 0, 1,            //
            12, 10, 11;         // [i][j] = A[σ(i)][σ(j)]
        QVERIFY(sigma.applyBoth(a) == expected);

        // On a boolean mask: the causal mask conjugated by the reversal is anti-causal.
        BoolMatrix causal(3, 3), anti(3, 3);
        for (int s = 0; s < 3; ++s)
            for (int t = 0; t < 3; ++t) {
                causal(s, t) = t <= s;
                anti(s, t) = t >= s;
            }
        QVERIFY((Permutation::reverse(3).applyBoth(causal) == anti).all());
    }

    void sizeMismatchRefused() {
        const Permutation sigma({1, 0, 2});
        const QString rows =
            inputErrorOf([&] { sigma.applyRows<double>(Eigen::MatrixXd::Zero(4, 2)); });
        QVERIFY2(rows.contains("size 3") && rows.contains("4 rows"), qPrintable(rows));
        const Eigen::MatrixXd wide = Eigen::MatrixXd::Zero(3, 4),
                              small = Eigen::MatrixXd::Zero(2, 2);
        const QString cols = inputErrorOf([&] { sigma.applyBoth(wide); });
        QVERIFY2(cols.contains("size 3") && cols.contains("4 columns"), qPrintable(cols));
        const QString square = inputErrorOf([&] { sigma.applyBoth(small); });
        QVERIFY2(!square.isNull(), "no InputError");
    }

private:
    static Eigen::MatrixXd toDouble(const Matrix<Rational>& m) {
        Eigen::MatrixXd out(m.rows(), m.cols());
        for (Eigen::Index i = 0; i < m.size(); ++i)
            out(i) = attnlab::toDouble(m(i));
        return out;
    }
};

QTEST_GUILESS_MAIN(TestPermutation)
#include "test_permutation.moc"
