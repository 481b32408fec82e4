// SPDX-License-Identifier: GPL-3.0-or-later
// The Positions page's core: each method's term on its own (ALiBi's bias, RoPE's angles, an
// absolute table), drawn honestly or refused with a reason, and a row of scores against t − s.
#include "core/explore/positional_term.h"
#include "core/io/scenario_reader.h"
#include "core/test_support.h"

#include <QTest>

#include <cmath>

using namespace attnlab;

class TestPositionalTerm : public QObject {
    Q_OBJECT
private slots:
    void alibiIsConstantAlongEveryDiagonal() {
        PositionalSpec spec;
        spec.kind = PositionalSpec::Kind::Alibi;
        const PositionalTerm term = positionalTerm(spec, 6, 4, 1, 2, 2);
        // Two heads: slopes 2^-4 and 2^-8; head 1 has 1/256.
        QVERIFY2(QString::fromStdString(term.title).contains("1/256"), term.title.c_str());
        const Eigen::MatrixXd& b = term.matrix.values;
        QCOMPARE(b.rows(), 6);
        for (int s = 0; s < 6; ++s)
            for (int t = 0; t < 6; ++t)
                QCOMPARE(b(s, t), -std::abs(s - t) / 256.0);
    }

    void ropeDrawsTheCosineOfEachPairsAngle() {
        PositionalSpec spec;
        spec.kind = PositionalSpec::Kind::Rope;
        spec.offset = 3;
        const PositionalTerm term = positionalTerm(spec, 5, 8, 0, 2, 4);
        const Eigen::MatrixXd& c = term.matrix.values;
        QCOMPARE(c.rows(), 5);
        QCOMPARE(c.cols(), 2); // p = 4: two rotated pairs
        const std::vector<double> theta = ropeFrequencies(spec, 4);
        for (int i = 0; i < 5; ++i)
            for (int k = 0; k < 2; ++k)
                QCOMPARE(c(i, k), std::cos((i + 3) * theta[std::size_t(k)]));
    }

    void longSequencesDrawTheirFirstPositionsAndSaySo() {
        PositionalSpec spec;
        spec.kind = PositionalSpec::Kind::Alibi;
        const PositionalTerm term = positionalTerm(spec, 3000, 4, 0, 1, 4);
        QCOMPARE(term.matrix.values.rows(), Eigen::Index(kViewLimit));
        QVERIFY2(QString::fromStdString(term.title).contains("of 3000"), term.title.c_str());
    }

    void anAbsoluteTableIsTheOneAddedToTheTokens() {
        PositionalSpec spec;
        spec.kind = PositionalSpec::Kind::Sinusoidal;
        const PositionalTerm term = positionalTerm(spec, 7, 6, 0, 1, 6);
        QVERIFY(term.matrix.values.isApprox(absolutePositions<double>(spec, 7, 6)));
        QCOMPARE(QString::fromStdString(term.columnAxis), QString("feature j"));
    }

    void aTableThatCannotBeMadeSaysWhy() {
        PositionalSpec spec;
        spec.kind = PositionalSpec::Kind::Polynomial;
        const PositionalTerm term = positionalTerm(spec, 4, 2, 0, 1, 2);
        QCOMPARE(term.matrix.values.size(), Eigen::Index(0));
        QVERIFY2(QString::fromStdString(term.explanation).contains("d = 3"),
                 term.explanation.c_str());
        QCOMPARE(positionalTerm({}, 4, 2, 0, 1, 2).matrix.values.size(), Eigen::Index(0));
    }

    void scoresAgainstTheOffsetSkipMaskedKeys() {
        ViewMatrix scores;
        scores.values = (Eigen::MatrixXd(3, 3) << 1, 2, 3, 4, 5, 6, 7, 8, 9).finished();
        BoolMatrix causal = BoolMatrix::Constant(3, 3, false);
        for (int s = 0; s < 3; ++s)
            for (int t = 0; t <= s; ++t)
                causal(s, t) = true;
        const OffsetCurve row2 = scoresByOffset(scores, causal, 2);
        QCOMPARE(row2.offsets, (std::vector<double>{-2, -1, 0}));
        QCOMPARE(row2.scores, (std::vector<double>{7, 8, 9}));
        QCOMPARE(scoresByOffset(scores, {}, 1).offsets, (std::vector<double>{-1, 0, 1}));
        QVERIFY(scoresByOffset(scores, {}, 3).offsets.empty());
        scores.rowBlock = 2;
        QVERIFY(scoresByOffset(scores, {}, 0).offsets.empty());
    }

    void aRelativeMethodGivesEveryRowTheSameCurve() {
        // Equal tokens under causal ALiBi: a score depends on t − s only.
        Scenario s = loadScenario("builtin:alibi-causal");
        s.tokens = TokenSpec::given(Matrix<Rational>::Ones(5, 2));
        const SideBySide sides = compareSides(s, {});
        const HeadView head = sides.head(Side::Original, 0, 0);
        const OffsetCurve last = scoresByOffset(head.scores, sides.masks[0], 4);
        const OffsetCurve middle = scoresByOffset(head.scores, sides.masks[0], 2);
        QCOMPARE(last.offsets.front(), -4.0);
        for (std::size_t i = 0; i < middle.offsets.size(); ++i)
            QCOMPARE(middle.scores[i], last.scores[i + 2]);
        QVERIFY(last.scores.front() != last.scores.back());
    }
};

QTEST_GUILESS_MAIN(TestPositionalTerm)
#include "test_positional_term.moc"
