// SPDX-License-Identifier: GPL-3.0-or-later
// Masks (properties.md §1.5): every kind against a hand-written boolean matrix, validation,
// all-masked rows, the boolean product and the reachability that bounds locality (§2.3).
#include "core/base/error.h"
#include "core/spec/mask.h"
#include "core/test_support.h"

#include <QtTest>

using namespace attnlab;
using namespace attnlab::test;

Q_DECLARE_METATYPE(attnlab::MaskSpec)

namespace {
// A boolean matrix from rows of '0'/'1', e.g. {"110", "011"}.
BoolMatrix bools(const QStringList& rows) {
    const int cols = rows.isEmpty() ? 0 : int(rows.front().size());
    BoolMatrix m(rows.size(), cols);
    for (int s = 0; s < rows.size(); ++s) {
        Q_ASSERT(rows[s].size() == cols);
        for (int t = 0; t < cols; ++t)
            m(s, t) = rows[s][t] == '1';
    }
    return m;
}

// The rows of a boolean matrix as '0'/'1' text, for readable comparisons.
QStringList rowsOf(const BoolMatrix& m) {
    QStringList rows;
    for (Eigen::Index s = 0; s < m.rows(); ++s) {
        QString row;
        for (Eigen::Index t = 0; t < m.cols(); ++t)
            row += m(s, t) ? '1' : '0';
        rows << row;
    }
    return rows;
}

BoolMatrix identity(int n) {
    BoolMatrix m = BoolMatrix::Constant(n, n, false);
    for (int i = 0; i < n; ++i)
        m(i, i) = true;
    return m;
}
} // namespace

class TestMask : public QObject {
    Q_OBJECT
private slots:
    void kinds_data() {
        QTest::addColumn<MaskSpec>("spec");
        QTest::addColumn<QStringList>("expected");
        using M = MaskSpec;
        QTest::newRow("all") << M::all()
                             << QStringList{"11111", "11111", "11111", "11111", "11111"};
        QTest::newRow("none") << M::none()
                              << QStringList{"00000", "00000", "00000", "00000", "00000"};
        QTest::newRow("causal") << M::causal()
                                << QStringList{"10000", "11000", "11100", "11110", "11111"};
        QTest::newRow("window(0)")
            << M::window(0) << QStringList{"10000", "01000", "00100", "00010", "00001"};
        QTest::newRow("window(1)")
            << M::window(1) << QStringList{"11000", "11100", "01110", "00111", "00011"};
        QTest::newRow("window(2)")
            << M::window(2) << QStringList{"11100", "11110", "11111", "01111", "00111"};
        QTest::newRow("causal_window(1)")
            << M::causalWindow(1) << QStringList{"10000", "11000", "01100", "00110", "00011"};
        QTest::newRow("causal_window(2)")
            << M::causalWindow(2) << QStringList{"10000", "11000", "11100", "01110", "00111"};
        // Bands wider than the matrix (buildMask fills band masks column by column).
        QTest::newRow("window(2147483647) is all")
            << M::window(2147483647) << QStringList{"11111", "11111", "11111", "11111", "11111"};
        QTest::newRow("causal_window(9) is causal")
            << M::causalWindow(9) << QStringList{"10000", "11000", "11100", "11110", "11111"};
        QTest::newRow("prefix(2)")
            << M::prefix(2) << QStringList{"11000", "11000", "11100", "11110", "11111"};
        QTest::newRow("prefix(0) is causal")
            << M::prefix(0) << QStringList{"10000", "11000", "11100", "11110", "11111"};
        QTest::newRow("prefix(5) is all")
            << M::prefix(5) << QStringList{"11111", "11111", "11111", "11111", "11111"};
        QTest::newRow("blocks(2,3)")
            << M::blocks({2, 3}) << QStringList{"11000", "11000", "00111", "00111", "00111"};
        QTest::newRow("blocks(1,3,2)")
            << M::blocks({1, 3, 2})
            << QStringList{"100000", "011100", "011100", "011100", "000011", "000011"};
        QTest::newRow("dilated(1,2)")
            << M::dilated(1, 2)
            << QStringList{"101000", "010100", "101010", "010101", "001010", "000101"};
        QTest::newRow("dilated(2,2)")
            << M::dilated(2, 2)
            << QStringList{"101010", "010101", "101010", "010101", "101010", "010101"};
        QTest::newRow("dilated(2,3)")
            << M::dilated(2, 3)
            << QStringList{"100100", "010010", "001001", "100100", "010010", "001001"};
        // radius·dilation = 2^31 does not fit an int; the scenario reader accepts both values.
        QTest::newRow("dilated(65536,32768), no overflow")
            << M::dilated(65536, 32768) << QStringList{"10000", "01000", "00100", "00010", "00001"};
        QTest::newRow("dilated(2,1) is window(2)")
            << M::dilated(2, 1) << QStringList{"11100", "11110", "11111", "01111", "00111"};
        QTest::newRow("global(1, causal)")
            << M::global(1, M::causal())
            << QStringList{"11111", "11000", "11100", "11110", "11111"};
        QTest::newRow("global(2, window(0))")
            << M::global(2, M::window(0))
            << QStringList{"11111", "11111", "11100", "11010", "11001"};
        QTest::newRow("global(0, causal) is causal")
            << M::global(0, M::causal())
            << QStringList{"10000", "11000", "11100", "11110", "11111"};
        const QStringList customRows{"10100", "01000", "00000", "11111", "00011"};
        QTest::newRow("custom") << M::custom(bools(customRows)) << customRows;
        QTest::newRow("and(causal, window(1))")
            << M::both({M::causal(), M::window(1)})
            << QStringList{"10000", "11000", "01100", "00110", "00011"};
        QTest::newRow("or(causal, window(1))")
            << M::either({M::causal(), M::window(1)})
            << QStringList{"11000", "11100", "11110", "11111", "11111"};
        QTest::newRow("not(causal)")
            << M::negation(M::causal()) << QStringList{"01111", "00111", "00011", "00001", "00000"};
        QTest::newRow("and(not(causal), window(1))")
            << M::both({M::negation(M::causal()), M::window(1)})
            << QStringList{"01000", "00100", "00010", "00001", "00000"};
        QTest::newRow("or(blocks(2,3), global(1, none))")
            << M::either({M::blocks({2, 3}), M::global(1, M::none())})
            << QStringList{"11111", "11000", "10111", "10111", "10111"};
        QTest::newRow("and of one")
            << M::both({M::window(1)}) << QStringList{"11000", "11100", "01110", "00111", "00011"};
        QTest::newRow("or(custom, not(all))")
            << M::either({M::custom(bools(customRows)), M::negation(M::all())}) << customRows;
    }
    void kinds() {
        QFETCH(MaskSpec, spec);
        QFETCH(QStringList, expected);
        const int n = int(expected.size());
        const BoolMatrix m = buildMask(spec, n);
        QCOMPARE(m.rows(), Eigen::Index(n));
        QCOMPARE(m.cols(), Eigen::Index(n));
        QCOMPARE(rowsOf(m), expected);
        // allowed() is the same predicate, entry by entry.
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t)
                QCOMPARE(spec.allowed(s, t, n), expected[s][t] == '1');
    }

    void validateRefuses_data() {
        QTest::addColumn<MaskSpec>("spec");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("fragment");
        using M = MaskSpec;
        QTest::newRow("blocks short")
            << M::blocks({2, 2}) << 5 << "blocks add up to 4, expected n = 5";
        QTest::newRow("blocks long")
            << M::blocks({3, 3}) << 5 << "blocks add up to 6, expected n = 5";
        QTest::newRow("blocks empty") << M::blocks({}) << 5 << "blocks add up to 0, expected n = 5";
        QTest::newRow("block of size 0") << M::blocks({0, 5}) << 5 << "must be positive";
        QTest::newRow("custom too small") << M::custom(BoolMatrix::Constant(4, 4, true)) << 5
                                          << "custom mask is 4 x 4, expected 5 x 5";
        QTest::newRow("custom not square") << M::custom(BoolMatrix::Constant(5, 4, true)) << 5
                                           << "custom mask is 5 x 4, expected 5 x 5";
        QTest::newRow("window negative") << M::window(-1) << 5 << "radius";
        QTest::newRow("causal_window negative") << M::causalWindow(-2) << 5 << "radius";
        QTest::newRow("prefix negative") << M::prefix(-1) << 5 << "length";
        QTest::newRow("dilation 0") << M::dilated(1, 0) << 5 << "dilation";
        QTest::newRow("global negative") << M::global(-1, M::all()) << 5 << "count";
        QTest::newRow("and of nothing") << M::both({}) << 5 << "at least one mask";
        QTest::newRow("or of nothing") << M::either({}) << 5 << "at least one mask";
        QTest::newRow("nested in not") << M::negation(M::blocks({2, 2})) << 5 << "add up to 4";
        QTest::newRow("nested in global")
            << M::global(1, M::custom(BoolMatrix::Constant(3, 3, true))) << 5 << "3 x 3";
        QTest::newRow("nested in and")
            << M::both({M::causal(), M::blocks({1, 1})}) << 5 << "add up to 2";
    }
    void validateRefuses() {
        QFETCH(MaskSpec, spec);
        QFETCH(int, n);
        QFETCH(QString, fragment);
        const QString message = inputErrorOf([&] { spec.validate(n); });
        QVERIFY2(!message.isNull(), "validate: no InputError");
        QVERIFY2(message.contains(fragment), qPrintable(message));
        // buildMask validates before it evaluates.
        QVERIFY2(!inputErrorOf([&] { buildMask(spec, n); }).isNull(), "buildMask: no InputError");
    }

    void validateAccepts() {
        MaskSpec::blocks({2, 3}).validate(5);
        MaskSpec::custom(BoolMatrix::Constant(5, 5, false)).validate(5);
        MaskSpec::window(0).validate(5);
        MaskSpec::global(0, MaskSpec::causal()).validate(5);
        QVERIFY(inputErrorOf([] { MaskSpec::blocks({2, 3}).validate(5); }).isNull());
    }

    void allMaskedRows_data() {
        QTest::addColumn<MaskSpec>("spec");
        QTest::addColumn<int>("n");
        QTest::addColumn<QList<int>>("rows");
        using M = MaskSpec;
        QTest::newRow("all") << M::all() << 4 << QList<int>{};
        QTest::newRow("causal") << M::causal() << 4 << QList<int>{};
        QTest::newRow("none") << M::none() << 3 << QList<int>{0, 1, 2};
        QTest::newRow("custom") << M::custom(bools({"1100", "0000", "0010", "0000"})) << 4
                                << QList<int>{1, 3};
        QTest::newRow("strictly causal")
            << M::both({M::causal(), M::negation(M::window(0))}) << 4 << QList<int>{0};
        QTest::newRow("not(causal)") << M::negation(M::causal()) << 4 << QList<int>{3};
        QTest::newRow("global rescues") << M::global(1, M::none()) << 3 << QList<int>{};
    }
    void allMaskedRows() {
        QFETCH(MaskSpec, spec);
        QFETCH(int, n);
        QFETCH(QList<int>, rows);
        const std::vector<int> found = attnlab::allMaskedRows(buildMask(spec, n));
        QCOMPARE(QList<int>(found.begin(), found.end()), rows);
    }

    void booleanProduct() {
        const BoolMatrix a = bools({"100", "001", "000"});
        const BoolMatrix b = bools({"010", "000", "101"});
        // Row s of A∘B is the OR of the rows u of B with A[s][u].
        QCOMPARE(rowsOf(attnlab::booleanProduct(a, b)), (QStringList{"010", "101", "000"}));
        QCOMPARE(rowsOf(attnlab::booleanProduct(b, a)), (QStringList{"001", "000", "100"}));
        // Non-square: 2 x 3 times 3 x 2.
        QCOMPARE(rowsOf(attnlab::booleanProduct(bools({"110", "001"}), bools({"10", "00", "01"}))),
                 (QStringList{"10", "01"}));
        // Counts above 1 still give true, never overflow into false.
        const BoolMatrix all = BoolMatrix::Constant(6, 6, true);
        QVERIFY(attnlab::booleanProduct(all, all).all());
        const BoolMatrix causal = buildMask(MaskSpec::causal(), 5);
        QCOMPARE(rowsOf(attnlab::booleanProduct(causal, causal)), rowsOf(causal));
        const BoolMatrix w1 = buildMask(MaskSpec::window(1), 6);
        QCOMPARE(rowsOf(attnlab::booleanProduct(w1, w1)),
                 rowsOf(buildMask(MaskSpec::window(2), 6)));
    }

    void reachability_data() {
        QTest::addColumn<QList<MaskSpec>>("layers");
        QTest::addColumn<int>("n");
        QTest::addColumn<MaskSpec>("expected");
        QTest::addColumn<int>("radius");
        using M = MaskSpec;
        QTest::newRow("2 x window(1) = window(2)")
            << QList<MaskSpec>{M::window(1), M::window(1)} << 6 << M::window(2) << 2;
        QTest::newRow("3 x window(1) = window(3)")
            << QList<MaskSpec>{M::window(1), M::window(1), M::window(1)} << 7 << M::window(3) << 3;
        QTest::newRow("window(1) then window(2) = window(3)")
            << QList<MaskSpec>{M::window(1), M::window(2)} << 8 << M::window(3) << 3;
        QTest::newRow("2 x causal_window(1) = causal_window(2)")
            << QList<MaskSpec>{M::causalWindow(1), M::causalWindow(1)} << 6 << M::causalWindow(2)
            << 2;
        QTest::newRow("causal twice")
            << QList<MaskSpec>{M::causal(), M::causal()} << 5 << M::causal() << 4;
        QTest::newRow("none reads itself") << QList<MaskSpec>{M::none()} << 4 << M::window(0) << 0;
        QTest::newRow("strictly causal gains the diagonal")
            << QList<MaskSpec>{M::both({M::causal(), M::negation(M::window(0))})} << 4
            << M::causal() << 3;
        QTest::newRow("blocks stay blocks")
            << QList<MaskSpec>{M::blocks({2, 3}), M::blocks({2, 3})} << 5 << M::blocks({2, 3}) << 2;
    }
    void reachability() {
        QFETCH(QList<MaskSpec>, layers);
        QFETCH(int, n);
        QFETCH(MaskSpec, expected);
        QFETCH(int, radius);
        std::vector<BoolMatrix> masks;
        for (const MaskSpec& spec : layers)
            masks.push_back(buildMask(spec, n));
        const BoolMatrix reach = attnlab::reachability(masks);
        QCOMPARE(rowsOf(reach), rowsOf(buildMask(expected, n)));
        QCOMPARE(attnlab::dependencyRadius(reach), radius);
    }

    void reachabilityOrder() {
        // Layer 1 lets token 1 read token 0; layer 2 lets token 2 read token 1. In that order
        // output 2 depends on input 0; in the other order it does not.
        const BoolMatrix m1 = bools({"000", "100", "000"});
        const BoolMatrix m2 = bools({"000", "000", "010"});
        QCOMPARE(rowsOf(attnlab::reachability({m1, m2})), (QStringList{"100", "110", "111"}));
        QCOMPARE(rowsOf(attnlab::reachability({m2, m1})), (QStringList{"100", "110", "011"}));
        QCOMPARE(attnlab::reachability({}).size(), Eigen::Index(0));
    }

    void dependencyRadius_data() {
        QTest::addColumn<QStringList>("map");
        QTest::addColumn<int>("radius");
        QTest::newRow("identity") << rowsOf(identity(4)) << 0;
        QTest::newRow("nothing") << QStringList{"000", "000", "000"} << -1;
        QTest::newRow("single far entry") << QStringList{"0001", "0000", "0000", "0000"} << 3;
        QTest::newRow("below diagonal") << QStringList{"000", "000", "010"} << 1;
        QTest::newRow("window(2)") << rowsOf(buildMask(MaskSpec::window(2), 6)) << 2;
        QTest::newRow("causal") << rowsOf(buildMask(MaskSpec::causal(), 5)) << 4;
        QTest::newRow("empty matrix") << QStringList{} << -1;
    }
    void dependencyRadius() {
        QFETCH(QStringList, map);
        QFETCH(int, radius);
        QCOMPARE(attnlab::dependencyRadius(bools(map)), radius);
    }

    void describe_data() {
        QTest::addColumn<MaskSpec>("spec");
        QTest::addColumn<QString>("text");
        using M = MaskSpec;
        QTest::newRow("all") << M::all() << "all";
        QTest::newRow("window") << M::window(2) << "window(2)";
        QTest::newRow("causal_window") << M::causalWindow(3) << "causal_window(3)";
        QTest::newRow("prefix") << M::prefix(2) << "prefix(2)";
        QTest::newRow("blocks") << M::blocks({2, 3}) << "blocks(2,3)";
        QTest::newRow("dilated") << M::dilated(1, 2) << "dilated(1, 2)";
        QTest::newRow("global") << M::global(1, M::causal()) << "global(1, causal)";
        QTest::newRow("and") << M::both({M::causal(), M::window(3)}) << "and(causal, window(3))";
        QTest::newRow("not") << M::negation(M::none()) << "not(none)";
    }
    void describe() {
        QFETCH(MaskSpec, spec);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(spec.describe()), text);
    }

    void equality() {
        QVERIFY(MaskSpec::window(2) == MaskSpec::window(2));
        QVERIFY(!(MaskSpec::window(2) == MaskSpec::window(3)));
        QVERIFY(!(MaskSpec::window(1) == MaskSpec::causalWindow(1)));
        QVERIFY(MaskSpec::custom(identity(3)) == MaskSpec::custom(identity(3)));
        QVERIFY(!(MaskSpec::custom(identity(3)) == MaskSpec::custom(bools({"110", "010", "001"}))));
        QVERIFY(!(MaskSpec::custom(identity(3)) == MaskSpec::custom(identity(4))));
        QVERIFY(MaskSpec::all().isAll());
        QVERIFY(!MaskSpec::causal().isAll());
    }
};

QTEST_GUILESS_MAIN(TestMask)
#include "test_mask.moc"
