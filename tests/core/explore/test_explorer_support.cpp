// SPDX-License-Identifier: GPL-3.0-or-later
// What the explorer asks of the core instead of computing it itself: whether an edit can be
// computed, the exact numbers its editors show, table edits, views pooled to a plot's pixels,
// the colour maps, the RoPE base rule and the dependency maps of a report.
#include "core/checks/check_registry.h"
#include "core/checks/report_export.h"
#include "core/explore/dependency_maps.h"
#include "core/explore/display_pooling.h"
#include "core/explore/editable_values.h"
#include "core/explore/explorer_input.h"
#include "core/explore/side_by_side.h"
#include "core/formats/color_maps.h"
#include "core/formats/npy.h"
#include "core/formats/short_number.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "core/test_support.h"

#include <QTemporaryDir>
#include <QTest>

using namespace attnlab;

namespace {

Scenario defaultScenario() {
    std::string name = "builtin:"; // appended: GCC 12 warns falsely on "literal" + a temporary
    name += kDefaultPreset;
    return loadScenario(name);
}

} // namespace

class TestExplorerSupport : public QObject {
    Q_OBJECT
private slots:
    void aPerturbationOutsideTheTokensIsRefused() {
        const Scenario s = defaultScenario();
        Transform t;
        t.kind = Transform::Kind::Perturbation;
        validateExplorerInput(s, t);
        t.token = s.n();
        const QString message = test::inputErrorOf([&] { validateExplorerInput(s, t); });
        QVERIFY2(message.contains("outside the tokens"), qPrintable(message));
    }

    void aDecodeStepIsComparedWithTheLastRows() {
        const Scenario s = loadScenario("builtin:causal-model"); // n = 6, two heads, causal
        Transform t;
        t.kind = Transform::Kind::Decode;
        t.queries = 2;
        const SideBySide bottomRight = compareSides(s, t);
        const ViewMatrix w = bottomRight.head(Side::Transformed, 0, 1).weights;
        QCOMPARE(w.values.rows(), Eigen::Index(2));
        QCOMPARE(w.values.cols(), Eigen::Index(6));
        QCOMPARE(bottomRight.head(Side::Difference, 0, 1).weights.values.rows(), Eigen::Index(2));
        QCOMPARE(bottomRight.transformedMasks.size(), std::size_t(1));
        QVERIFY((bottomRight.transformedMasks[0].array() ==
                 rectangularCausal(2, 6, CausalAlignment::BottomRight).array())
                    .all());
        QCOMPARE(bottomRight.transformed.labels, (std::vector<std::string>{"4", "5"}));
        QCOMPARE(bottomRight.transformed.columnLabels().size(), std::size_t(6));
        QCOMPARE(bottomRight.original.columnLabels(), bottomRight.original.labels);
        QCOMPARE(bottomRight.transformedLabel, std::string("decode 2 of 6, bottom-right"));
        QCOMPARE(bottomRight.transformText,
                 std::string("decode 2 queries against a KV cache of 4 (bottom-right)"));
        QVERIFY(std::stod(bottomRight.largestDifference) < 1e-12);
        t.alignment = CausalAlignment::TopLeft;
        const SideBySide topLeft = compareSides(s, t);
        QVERIFY2(std::stod(topLeft.largestDifference) > 1e-3, topLeft.largestDifference.c_str());

        // An m x n mask file replaces the aligned rows; any other shape is refused.
        QTemporaryDir dir;
        t.maskFile = dir.filePath("m.npy").toStdString();
        writeNpyMask(t.maskFile, rectangularCausal(2, 6, CausalAlignment::BottomRight));
        validateExplorerInput(s, t);
        QCOMPARE(compareSides(s, t).largestDifference, bottomRight.largestDifference);
        writeNpyMask(t.maskFile, rectangularCausal(6, 6, CausalAlignment::BottomRight));
        QCOMPARE(test::inputErrorOf([&] { validateExplorerInput(s, t); }),
                 QString("decode.mask: the mask is 6 x 6, the decode step needs 2 x 6 (m queries "
                         "x n keys)"));
        t.maskFile.clear();
        t.queries = 7;
        QVERIFY(
            test::inputErrorOf([&] { validateExplorerInput(s, t); }).startsWith("decode.queries"));
    }

    void eachSideOutlinesTheCellItsWitnessCompares() {
        // σ = reversal of 6: row r of f(P X) is compared with row σ(r) = 5 − r of f(X), and on a
        // map (P A Pᵀ) column c with column 5 − c.
        Scenario s = loadScenario("builtin:causal-model");
        const SideBySide permuted = compareSides(s, Transform{});
        const auto output = permuted.witnessCells({4, 1}, false);
        QCOMPARE(*output[0], (MapCell{1, 1}));
        QCOMPARE(*output[1], (MapCell{4, 1}));
        QCOMPARE(*output[2], (MapCell{4, 1}));
        QCOMPARE(*permuted.witnessCells({4, 1}, true)[0], (MapCell{1, 4}));
        // The cell holds what the difference compares: f(P X)[r][c] − f(X)[σ(r)][c].
        const Eigen::MatrixXd& fx = permuted.original.output.values;
        const Eigen::MatrixXd& fpx = permuted.transformed.output.values;
        QCOMPARE(permuted.difference.output.values(4, 1), fpx(4, 1) - fx(1, 1));

        // A decode step of 2 after a cache of 4: its witness names the full pass's row 5, which
        // is row 1 of the step; a cached row has no cell on the step's maps.
        Transform decode;
        decode.kind = Transform::Kind::Decode;
        decode.queries = 2;
        const SideBySide step = compareSides(s, decode);
        const auto last = step.witnessCells({5, 3}, true);
        QCOMPARE(*last[0], (MapCell{5, 3}));
        QCOMPARE(*last[1], (MapCell{1, 3}));
        const auto cached = step.witnessCells({2, 0}, true);
        QVERIFY(cached[0] && !cached[1] && !cached[2]);

        // A shift compares the same cells.
        Transform shift;
        shift.kind = Transform::Kind::Shift;
        shift.shift = 2;
        const auto same = compareSides(s, shift).witnessCells({3, 2}, true);
        QCOMPARE(*same[0], (MapCell{3, 2}));
        QCOMPARE(*same[1], (MapCell{3, 2}));
    }

    void theDecodeStepFollowsTheTokensDown() {
        Scenario s = loadScenario("builtin:causal-model"); // n = 6
        Transform t;
        t.kind = Transform::Kind::Decode;
        t.queries = 6;
        s.tokens = TokenSpec::random(4, s.d(), 1);
        const Transform fitted = fittedToTokens(t, s);
        QCOMPARE(fitted.queries, 4);
        validateExplorerInput(s, fitted);
        t.queries = 3; // fits: unchanged, as is everything else
        QCOMPARE(fittedToTokens(t, s), t);
    }

    void weightsThatDoNotFitTheTokensAreRefused() {
        Scenario s = defaultScenario();
        s.model.layers[0].wq = MatrixSpec::given(Matrix<Rational>::Identity(s.d() + 1, 2));
        QVERIFY(!test::inputErrorOf([&] { validateExplorerInput(s, Transform{}); }).isNull());
        QVERIFY(!test::inputErrorOf([&] { weightValues(s, 0, LayerWeight::Wq); }).isNull());
    }

    void weightValuesAreTheMaterialisedMatrix() {
        Scenario s = defaultScenario();
        s.precision = Precision::Float64;
        LayerSpec& layer = s.model.layers[0];
        layer.wk = MatrixSpec::identity();
        layer.wo.reset();
        const std::optional<Matrix<Rational>> wk = weightValues(s, 0, LayerWeight::Wk);
        QVERIFY(wk.has_value());
        QVERIFY(*wk == Matrix<Rational>::Identity(s.d(), s.d()));
        QVERIFY(!weightValues(s, 0, LayerWeight::Wo).has_value());
    }

    void floatTokensAreShownByTheirDecimals() {
        Scenario s = defaultScenario();
        s.tokens = TokenSpec::random(2, 3, 7);
        s.precision = Precision::Float64;
        const Matrix<double> x = s.tokens.materialize<double>();
        const Matrix<Rational> shown = tokenValues(s);
        QCOMPARE(shown.rows(), 2);
        QCOMPARE(shown(1, 2), decimalRational(x(1, 2)));
        QCOMPARE(decimalValues(Eigen::MatrixXd::Constant(1, 1, 0.1))(0, 0), Rational(1, 10));
    }

    void resizingKeepsTheTopLeftAndPastingGrows() {
        const Matrix<Rational> m = test::rat("1 2; 3 4");
        QVERIFY(resizedValues(m, 3, 1) == test::rat("1; 3; 0"));
        QVERIFY(pastedValues(m, test::rat("5 6"), 1, 1) == test::rat("1 2 0; 3 5 6"));
    }

    void viewsArePooledToThePixelsKeepingPeaksOfEitherSign() {
        Eigen::MatrixXd v = Eigen::MatrixXd::Zero(4, 4);
        v(0, 1) = -3;
        v(3, 3) = 2;
        QCOMPARE(displayBlocks(4, 4, 2, 4), std::make_pair(2, 1));
        QCOMPARE(displayBlocks(4, 4, 16, 16), std::make_pair(1, 1));
        const Eigen::MatrixXd pooled = displayCells(v, 2, 2);
        QCOMPARE(pooled.rows(), 2);
        QCOMPARE(pooled(0, 0), -3.0);
        QCOMPARE(pooled(1, 1), 2.0);
        QVERIFY(displayCells(v, 16, 16) == v);

        BoolMatrix allowed = BoolMatrix::Constant(4, 4, false);
        allowed(0, 0) = true;
        const Eigen::MatrixXd shade = maskedShade(allowed, 2, 2);
        QCOMPARE(shade(0, 0), 0.0);
        QCOMPARE(shade(1, 1), 1.0);
    }

    void colourMapsRunFromTheirEndStops() {
        QVERIFY((colourAt(ColourScale::Sequential, 0) == Rgb{68, 1, 84}));
        QVERIFY((colourAt(ColourScale::Sequential, 1) == Rgb{253, 231, 37}));
        QVERIFY((colourAt(ColourScale::Sequential, 2) == Rgb{253, 231, 37}));
        QVERIFY((colourAt(ColourScale::Diverging, 0.5) == Rgb{242, 242, 242}));
        QVERIFY((colourAt(ColourScale::Sequential, 0.0625) == Rgb{70, 23, 103}));
        QCOMPARE(colourStops(ColourScale::Diverging).front().position, 0.0);
        QCOMPARE(colourStops(ColourScale::Diverging).back().position, 1.0);
    }

    void colourRangesSpanTheValues() {
        Eigen::MatrixXd v(1, 3);
        v << -1, 0.5, 2;
        QCOMPARE(colourRange(ColourScale::Sequential, v).lo, -1.0);
        QCOMPARE(colourRange(ColourScale::Sequential, v).hi, 2.0);
        QCOMPARE(colourRange(ColourScale::Diverging, v).lo, -2.0);
        const Eigen::MatrixXd flat = Eigen::MatrixXd::Constant(2, 2, 3.0);
        QCOMPARE(colourRange(ColourScale::Sequential, flat).lo, 2.5);
        QCOMPARE(colourRange(ColourScale::Diverging, Eigen::MatrixXd::Zero(2, 2)).hi, 1.0);
    }

    void roundingIsNeutralAndTextContrasts() {
        Eigen::MatrixXd d(1, 3);
        d << 1e-8, -0.5, -1e-7;
        const Eigen::MatrixXd n = neutralWithin(d, 1e-7);
        QCOMPARE(n(0, 0), 0.0);
        QCOMPARE(n(0, 1), -0.5);
        QCOMPARE(n(0, 2), 0.0);
        QVERIFY(darkTextOn(colourAt(ColourScale::Sequential, 1)));  // on yellow
        QVERIFY(!darkTextOn(colourAt(ColourScale::Sequential, 0))); // on dark purple
        QVERIFY(darkTextOn(colourAt(ColourScale::Diverging, 0.5)));
    }

    void shortNumbers_data() {
        QTest::addColumn<QString>("exact");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("shown");
        QTest::newRow("short fraction") << "7/9" << 7.0 / 9 << "7/9";
        QTest::newRow("long fraction") << "1822795/48297" << 1822795.0 / 48297 << "37.7";
        QTest::newRow("negative fraction") << "-5/18" << -5.0 / 18 << "-5/18";
        QTest::newRow("integer") << "6" << 6.0 << "6";
        QTest::newRow("float") << "" << 0.7777777 << "0.778";
        QTest::newRow("float integer") << "" << 3.0 << "3";
        QTest::newRow("small") << "" << 1.234e-7 << "1.23e-7";
        QTest::newRow("large") << "" << 12345678.0 << "1.23e7";
        QTest::newRow("negative zero") << "" << -0.0 << "0";
    }

    void shortNumbers() {
        QFETCH(QString, exact);
        QFETCH(double, value);
        QFETCH(QString, shown);
        QCOMPARE(QString::fromStdString(shortCellText(exact.toStdString(), value)), shown);
    }

    void aToleranceIsWrittenWithTwoDigits() {
        QCOMPARE(QString::fromStdString(shortNumber(1.19e-7, 2)), QString("1.2e-7"));
        QCOMPARE(QString::fromStdString(shortNumber(2.5e-16, 2)), QString("2.5e-16"));
    }

    // Two maps drawn side by side share the range of all their values: 6 and 3 are not both
    // drawn at the top of the scale.
    void twoMapsShareOneRange() {
        Eigen::MatrixXd a(1, 2), b(1, 2);
        a << 1, 6;
        b << 2, 3;
        const ValueRange shared = sharedColourRange(ColourScale::Sequential, a, b);
        QCOMPARE(shared.lo, 1.0);
        QCOMPARE(shared.hi, 6.0);
        QCOMPARE(sharedColourRange(ColourScale::Diverging, -a, b).lo, -6.0);
        QCOMPARE(sharedColourRange(ColourScale::Sequential, Eigen::MatrixXd(), b).hi, 3.0);
        const Eigen::MatrixXd flat = Eigen::MatrixXd::Constant(1, 1, 2.0);
        QCOMPARE(sharedColourRange(ColourScale::Sequential, flat, flat).hi, 2.5);
    }

    void numbersAreShortOnMaps() {
        QCOMPARE(shortNumber(7.0 / 9), std::string("0.778"));
        QCOMPARE(shortNumber(-0.0), std::string("0"));
        QCOMPARE(shortNumber(6), std::string("6"));
        QCOMPARE(shortCellText("7/9", 7.0 / 9, 7), std::string("7/9"));
        QCOMPARE(shortCellText("1822795/48297", 1822795.0 / 48297, 7), std::string("37.7"));
        QCOMPARE(shortCellText("", 0.5, 7), std::string("0.5"));
    }

    void aVerdictIsOneLine() {
        PropertyReport r;
        r.name = "permutation-equivariance";
        r.verdict = Verdict::Fails;
        r.maxDeviation = ReportNumber(Rational(5, 9));
        r.tolerance = ReportNumber(Rational(0));
        QCOMPARE(verdictLine(r),
                 std::string("permutation-equivariance fails: max deviation 5/9, tolerance 0"));
        r.maxDeviation = ReportNumber(Rational(1822795, 48297));
        r.tolerance = ReportNumber(1e-5);
        QCOMPARE(
            verdictLine(r),
            std::string("permutation-equivariance fails: max deviation 37.7, tolerance 1e-05"));
        r.verdict = Verdict::NotApplicable;
        QCOMPARE(verdictLine(r), std::string("permutation-equivariance not applicable"));
    }

    void aRopeBaseIsANumberAboveOne() {
        QVERIFY(isValidRopeBase(kDefaultRopeBase));
        QVERIFY(isValidRopeBase(1.5));
        QVERIFY(!isValidRopeBase(1));
        QVERIFY(!isValidRopeBase(std::nan("")));
    }

    void dependencyMapsAreReadFromALocalityReport() {
        // builtin:sliding-window's masks allow a window of radius 1 on its tokens.
        const Scenario s = loadScenario("builtin:sliding-window");
        const auto reports = runChecks(s, {parseCheckArgument("locality")}, 0);
        const auto maps = dependencyMaps(reports.front());
        QVERIFY(maps.has_value());
        QCOMPARE(maps->measured.values.rows(), Eigen::Index(s.n()));
        QCOMPARE(maps->measured.values.cols(), Eigen::Index(s.n()));
        QCOMPARE(maps->bound.values.rows(), Eigen::Index(s.n()));
        // Every row depends on its own token; nothing is measured outside the bound.
        for (int i = 0; i < s.n(); ++i)
            QCOMPARE(maps->measured.values(i, i), 1.0);
        QVERIFY(
            ((maps->measured.values.array() > 0) && (maps->bound.values.array() == 0)).count() ==
            0);
    }

    void reportsWithoutMapsOrWithMalformedOnesDrawNothing() {
        PropertyReport r;
        QVERIFY(!dependencyMaps(r).has_value());
        r.details["dependency_map"] = {{1, 0}, {1}};
        const auto ragged = dependencyMaps(r);
        QVERIFY(ragged.has_value());
        QCOMPARE(ragged->measured.values.size(), Eigen::Index(0));
        r.details["dependency_map"] = {{true, false}, {false, true}};
        QCOMPARE(dependencyMaps(r)->measured.values, Eigen::MatrixXd::Identity(2, 2));
        QCOMPARE(dependencyMaps(r)->excess.values.size(), Eigen::Index(0)); // no bound
    }

    void theExcessMapSaysWhereMeasurementAndBoundDisagree() {
        PropertyReport r;
        r.details["dependency_map"] = {{1, 1}, {0, 1}};
        r.details["bound_map"] = {{1, 0}, {1, 1}};
        const Eigen::MatrixXd excess = dependencyMaps(r)->excess.values;
        QCOMPARE(excess, (Eigen::MatrixXd(2, 2) << 0, 1, -1, 0).finished());
    }
};

QTEST_GUILESS_MAIN(TestExplorerSupport)
#include "test_explorer_support.moc"
