// SPDX-License-Identifier: GPL-3.0-or-later
// The comparison each property is drawn with (core/explore/property_comparison.h): S beside Sᵀ
// for logit symmetry, the check's shift, a later token perturbed for causality, the witness's
// token, σ and decode step, and a note for the properties not drawn as maps.
#include "core/checks/check_registry.h"
#include "core/checks/check_support.h"
#include "core/explore/property_comparison.h"
#include "core/io/scenario_reader.h"

#include <QTest>

using namespace attnlab;

namespace {

/// A report whose witness is `witness` (what a failing check would return).
PropertyReport failingWith(const std::string& name, Witness witness) {
    PropertyReport r;
    r.name = name;
    r.verdict = Verdict::Fails;
    r.witness = std::move(witness);
    return r;
}

} // namespace

class TestPropertyComparison : public QObject {
    Q_OBJECT
private slots:
    void logitSymmetryShowsTheTransposedScores() {
        const Scenario s = loadScenario("builtin:alibi-causal");
        const PropertyComparison c = comparisonFor(s, "logit-symmetry");
        QCOMPARE(c.kind, PropertyComparison::Kind::Transpose);
        const SideBySide sides = compare(s, c);
        const HeadView original = sides.head(Side::Original, 0, 0);
        const HeadView transposed = sides.head(Side::Transformed, 0, 0);
        QVERIFY(transposed.scores.values == original.scores.values.transpose());
        QVERIFY(transposed.weights.values == original.weights.values.transpose());
        // The causal ALiBi bias is antisymmetric: Sᵀ − S is not zero.
        const Eigen::MatrixXd difference = sides.head(Side::Difference, 0, 0).scores.values;
        QVERIFY(difference == original.scores.values.transpose() - original.scores.values);
        QVERIFY(difference.cwiseAbs().maxCoeff() > 0);
        QVERIFY(sides.largestDifference != "0");
        QCOMPARE(sides.transformedLabel, std::string("transposed"));
        QVERIFY(sides.transformText.starts_with("logit-symmetry"));
        QCOMPARE(sides.transformed.output.values.size(), Eigen::Index(0));
        QVERIFY(!sides.transformed.emptyNote.empty());
        QVERIFY((sides.masksOf(true)[0].array() == sides.masks[0].transpose().array()).all());
    }

    void shiftInvarianceUsesTheCheckedShift() {
        const Scenario s = loadScenario("builtin:rope-shift");
        const PropertyComparison plain = comparisonFor(s, "shift-invariance");
        QCOMPARE(plain.transform.kind, Transform::Kind::Shift);
        QCOMPARE(plain.transform.shift, 1L);
        const PropertyReport r = failingWith(
            "shift-invariance",
            Witness({WitnessCell::Map::Scores, 0, 0, 1, 2}, CellKeys::RowColumn).with("offset", 5));
        const PropertyComparison witnessed = comparisonFor(s, "shift-invariance", &r);
        QCOMPARE(witnessed.transform.shift, 5L);
        const SideBySide sides = compare(s, witnessed);
        QCOMPARE(sides.transformedLabel, std::string("f(X), positions + 5"));
        Transform shift;
        shift.kind = Transform::Kind::Shift;
        shift.shift = 5;
        QVERIFY(sides.head(Side::Transformed, 0, 0).scores ==
                compareSides(s, shift).head(Side::Transformed, 0, 0).scores);
        QCOMPARE(sides.transformText, std::string("shift-invariance: shift by 5"));
    }

    void causalityPerturbsALaterTokenAndEarlierRowsStay() {
        const Scenario s = loadScenario("builtin:alibi-causal");
        const PropertyComparison c = comparisonFor(s, "causality");
        QCOMPARE(c.transform.kind, Transform::Kind::Perturbation);
        QCOMPARE(c.transform.token, s.n() - 1);
        const SideBySide sides = compare(s, c);
        const Eigen::MatrixXd d = sides.difference.output.values;
        QVERIFY(d.topRows(s.n() - 1).isZero(0));
        QVERIFY(!d.bottomRows(1).isZero(0)); // the perturbed token's own output moves
    }

    void localityAndCausalityPerturbTheWitnessToken() {
        const Scenario s = loadScenario("builtin:alibi-causal");
        const PropertyReport r =
            failingWith("causality", Witness({WitnessCell::Map::Dependency, -1, -1, 0, 2},
                                             CellKeys::OutputRowInputToken));
        QCOMPARE(comparisonFor(s, "causality", &r).transform.token, 2);
        QCOMPARE(comparisonFor(s, "locality", &r).transform.token, 2);
        const PropertyReport suffix =
            failingWith("causality", Witness().with("perturbed_tokens_from", 1));
        QCOMPARE(comparisonFor(s, "causality", &suffix).transform.token, 1);
    }

    void kvCacheDecodesTheWitnessStep() {
        const Scenario s = loadScenario("builtin:causal-model");
        QCOMPARE(comparisonFor(s, "kv-cache").transform.queries, 1);
        const PropertyReport r =
            failingWith("kv-cache", Witness().with("queries", 2).with("alignment", "top-left"));
        const PropertyComparison c = comparisonFor(s, "kv-cache", &r);
        QCOMPARE(c.transform.kind, Transform::Kind::Decode);
        QCOMPARE(c.transform.queries, 2);
        QCOMPARE(c.transform.alignment, CausalAlignment::TopLeft);
        QCOMPARE(compare(s, c).transformedLabel, std::string("decode 2 of 6, top-left"));
    }

    void equivarianceDrawsTheWitnessPermutationWhenNoneIsSet() {
        const Scenario s = loadScenario("builtin:alibi-causal");
        QVERIFY(!s.permutation.isSet());
        std::vector<int> swap01(std::size_t(s.n()));
        for (int i = 0; i < s.n(); ++i)
            swap01[std::size_t(i)] = i < 2 ? 1 - i : i;
        const PropertyReport r =
            failingWith("permutation-equivariance", Witness().with("permutation", swap01));
        const PropertyComparison c = comparisonFor(s, "permutation-equivariance", &r);
        QCOMPARE(c.transform.kind, Transform::Kind::Permutation);
        QVERIFY(c.permutation.has_value());
        QCOMPARE(c.permutation->images, swap01);
        const std::string text = compare(s, c).transformText;
        QVERIFY2(text.find("(0 1)") != std::string::npos, text.c_str());
        const PropertyComparison none = comparisonFor(s, "permutation-equivariance");
        QCOMPARE(none.permutation->kind, PermutationSpec::Kind::Reverse);
    }

    void theShrunkWitnessIsDrawnOnTheTokensItKeeps() {
        // rope-shift's equivariance failure shrinks to two of its six tokens: the views of the
        // smallest witness are that two-token input, its σ the witness's swap, and they differ.
        const Scenario s = loadScenario("builtin:rope-shift");
        const auto reports = runChecks(s, {parseCheckArgument("permutation-equivariance")}, 0);
        const PropertyReport& r = reports.front();
        QVERIFY(r.shrunkWitness);
        const PropertyComparison whole = comparisonFor(s, r.name, &r);
        QVERIFY(whole.tokens.empty());
        const PropertyComparison c = comparisonFor(s, r.name, &r, true);
        QCOMPARE(c.tokens.size(), std::size_t(2));
        QVERIFY2(c.summary.find("smallest witness") != std::string::npos, c.summary.c_str());
        const SideBySide sides = compare(s, c);
        QCOMPARE(sides.original.output.values.rows(), Eigen::Index(2));
        QCOMPARE(sides.original.labels.front(), "x" + std::to_string(c.tokens.front()));
        QVERIFY(sides.difference.output.values.cwiseAbs().maxCoeff() > 1e-6);
        QVERIFY2(sides.transformText.find("smallest witness") != std::string::npos,
                 sides.transformText.c_str());
    }

    void tilingDrawsTheTiledOutputBesideTheUntiledOne() {
        const Scenario s = loadScenario("builtin:alibi-causal"); // exact: tiling changes nothing
        const PropertyComparison c = comparisonFor(s, "tiling");
        QCOMPARE(c.kind, PropertyComparison::Kind::Blocks);
        QCOMPARE(c.blockSize, 2); // n = 5: the smallest ragged tile
        const SideBySide sides = compare(s, c);
        QCOMPARE(sides.transformedLabel, std::string("key tiles of 2"));
        QVERIFY(sides.difference.output.values.isZero(0));
        QCOMPARE(sides.largestDifference, std::string("0"));
        const PropertyReport r = failingWith(
            "tiling",
            Witness({WitnessCell::Map::Output, -1, -1, 0, 0}, CellKeys::RowColumn).with("tile", 3));
        QCOMPARE(comparisonFor(s, "tiling", &r).blockSize, 3);
        // No ssm layer to scan in chunks: said, and both sides the same.
        const SideBySide chunks = compare(s, comparisonFor(s, "chunkwise"));
        QVERIFY(chunks.warnings.front().find("no layer") != std::string::npos);
    }

    void tiledOutputsDifferByRoundingInFloat() {
        const Scenario s = loadScenario("builtin:flash-tiling-float32");
        const SideBySide sides = compare(s, comparisonFor(s, "tiling"));
        // Evaluated as the check does, on the fused kernel: outputs only, and it says so.
        QCOMPARE(sides.head(Side::Transformed, 0, 0).scores.values.size(), Eigen::Index(0));
        QCOMPARE(sides.head(Side::Difference, 0, 0).weights.values.size(), Eigen::Index(0));
        QVERIFY(!sides.transformed.emptyNote.empty());
        QCOMPARE(sides.transformed.output.values.rows(), Eigen::Index(s.n()));
        QVERIFY(sides.difference.output.values.cwiseAbs().maxCoeff() < 1e-4);
    }

    void tensorParallelDrawsTheSplitModelBesideTheWholeOne() {
        const Scenario s = loadScenario("builtin:parallel-float32");
        const PropertyComparison c = comparisonFor(s, "tensor-parallel");
        QCOMPARE(c.kind, PropertyComparison::Kind::Split);
        QCOMPARE(c.parts, 4); // the scenario's second tensor-parallel check asks for 4
        const SideBySide sides = compare(s, c);
        QCOMPARE(sides.transformedLabel, std::string("split in 4 parts"));
        QCOMPARE(sides.differenceLabel, std::string("split − whole"));
        // The split side is the model evaluated as the check splits it, to the last bit.
        const Model<float> model(s.model, s.d());
        Evaluation split;
        split.parts = 4;
        const Matrix<float> x = s.tokens.materialize<float>();
        const Matrix<float> expected = model.forwardBatch({x}, Maps::Keep, split).front().output;
        QVERIFY(sides.transformed.output.values == expected.cast<double>());
        QVERIFY(sides.difference.output.values.cwiseAbs().maxCoeff() < 1e-4);
        // A witness's part count is the one drawn.
        PropertyReport r = failingWith("tensor-parallel", Witness().with("parts", 3));
        QCOMPARE(comparisonFor(s, "tensor-parallel", &r).parts, 3);
    }

    void batchInvarianceDrawsTheTokensInsideTheBatch() {
        const Scenario s = loadScenario("builtin:batch-of-sequences");
        const SideBySide sides = compare(s, comparisonFor(s, "batch-invariance"));
        QCOMPARE(sides.transformedLabel,
                 std::string("in a batch of ") + std::to_string(1 + s.batch.size()));
        QCOMPARE(sides.largestDifference, std::string("0")); // exact: always holds
        QCOMPARE(sides.transformed.output.values.rows(), Eigen::Index(s.n()));
        QVERIFY(sides.head(Side::Transformed, 0, 0).weights.values ==
                sides.head(Side::Original, 0, 0).weights.values);
        // Without a batch of its own, the check's drawn sequences join the tokens.
        const Scenario plain = loadScenario("builtin:alibi-causal");
        QVERIFY(plain.batch.empty());
        QCOMPARE(compare(plain, comparisonFor(plain, "batch-invariance")).transformedLabel,
                 std::string("in a batch of 4"));
    }

    void dataParallelDrawsTheWorkersHalfBesideTheWholeBatch() {
        const Scenario s = loadScenario("builtin:parallel-float32"); // 1 + 3 drawn sequences
        const PropertyComparison c = comparisonFor(s, "data-parallel");
        const SideBySide sides = compare(s, c);
        QCOMPARE(sides.originalLabel, std::string("whole batch (4)"));
        QCOMPARE(sides.transformedLabel, std::string("worker 0 (2 of 4)"));
        QVERIFY(sides.warnings.front().find("gradients") != std::string::npos);
        // Both sides are batched evaluations of the check's own batch.
        const Model<float> model(s.model, s.d());
        std::vector<Matrix<float>> batch{s.tokens.materialize<float>()};
        for (const TokenSpec& mate : batchMates(s, 0))
            batch.push_back(mate.materialize<float>());
        QCOMPARE(batch.size(), std::size_t(4));
        const Matrix<float> whole = model.forwardBatch(batch, Maps::Keep).front().output;
        batch.resize(2);
        const Matrix<float> half = model.forwardBatch(batch, Maps::Keep).front().output;
        QVERIFY(sides.original.output.values == whole.cast<double>());
        QVERIFY(sides.transformed.output.values == half.cast<double>());
        // A witness in a later sequence is named: the maps show the tokens only.
        PropertyReport r = failingWith("data-parallel", Witness().with("example", 2));
        QVERIFY(comparisonFor(s, "data-parallel", &r).note.find("sequence 2") != std::string::npos);
    }

    void allTrueMaskDrawsTheUnmaskedPath() {
        // window(1) on 3 tokens blocks two corners: the unmasked path differs, and its weights
        // are drawn with no key greyed.
        const Scenario blocked = loadScenario("builtin:mask-almost-all-true");
        const SideBySide sides = compare(blocked, comparisonFor(blocked, "all-true-mask"));
        QCOMPARE(sides.transformedLabel, std::string("no mask"));
        QVERIFY(sides.largestDifference != "0");
        QVERIFY(!sides.masks[0].all());
        QVERIFY(sides.masksOf(true)[0].all());
        // A mask as wide as the sequence is all-true: nothing changes, exactly.
        const Scenario wide = loadScenario("builtin:mask-as-wide-as-the-sequence");
        QCOMPARE(compare(wide, comparisonFor(wide, "all-true-mask")).largestDifference,
                 std::string("0"));
    }

    void comparisonsDrawTheSameMapsWhenTheyEvaluateAlike() {
        const Scenario s = loadScenario("builtin:parallel-float32");
        const PropertyComparison split = comparisonFor(s, "tensor-parallel");
        PropertyComparison reworded = split;
        reworded.summary = "other words";
        reworded.note = "a note";
        QVERIFY(split.drawsSameAs(reworded));
        // Both are Kind::Split with the same fields otherwise: how they split decides the maps.
        QVERIFY(!split.drawsSameAs(comparisonFor(s, "batch-invariance")));
        // The transformation's maps are the same whichever property draws them.
        PropertyComparison equivariance = comparisonFor(s, "permutation-equivariance");
        PropertyComparison plain = equivariance;
        plain.property.clear();
        QVERIFY(equivariance.drawsSameAs(plain));
        plain.transform.shift = 3;
        QVERIFY(!equivariance.drawsSameAs(plain));
    }

    void undrawnPropertiesSayWhatTheyCompare() {
        const Scenario s = loadScenario("builtin:alibi-causal");
        const SideBySide sides = compare(s, comparisonFor(s, "gradient"));
        QVERIFY(!sides.warnings.empty());
        QVERIFY(sides.warnings.front().find("gradient compares") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestPropertyComparison)
#include "test_property_comparison.moc"
