// SPDX-License-Identifier: GPL-3.0-or-later
// The maps' scales and numbers through real widgets: a row's two sides share one colour range
// (or not, per "per-map scales"), rounding-only differences are drawn neutral with the tolerance
// on the colour bar, an exactly-zero difference says so, numbers are written in the cells of
// small maps and not of big ones, and presentation mode enlarges the maps' fonts.
#include "core/explore/side_by_side.h"
#include "core/formats/color_maps.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"

#include <QCheckBox>
#include <QTest>

#include <qcustomplot.h>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// The panel drawing `scenario` under its default permutation, shown at a readable size.
struct Panel {
    ViewsPanel views;
    explicit Panel(const Scenario& scenario) {
        views.resize(1100, 800);
        views.show();
        views.setViews(std::make_shared<const SideBySide>(compareSides(scenario, Transform{})),
                       DrawnComparison{}); // no witness here
        QCoreApplication::processEvents(); // the redraw is queued
        QCoreApplication::processEvents();
    }
    HeatmapView* at(ViewsPanel::Row r, ViewsPanel::Column c) const { return views.view(r, c); }
};

bool sameRange(const ValueRange& a, const ValueRange& b) {
    return a.lo == b.lo && a.hi == b.hi;
}

QColor neutral() {
    const Rgb centre = colourAt(ColourScale::Diverging, 0.5);
    return QColor(centre[0], centre[1], centre[2]);
}

ViewMatrix square(int n, double value) {
    ViewMatrix m;
    m.values = Eigen::MatrixXd::Constant(n, n, value);
    m.values(0, 0) = 7.0 / 9;
    return m;
}

} // namespace

class TestUiScales : public QObject {
    Q_OBJECT
private slots:
    void aRowsTwoSidesShareOneRangeUnlessPerMap() {
        // The default scenario: S f(X) spans 1..6, S f(P X) 2..3.
        Panel p(loadScenario(std::string("builtin:") + kDefaultPreset));
        HeatmapView* original = p.at(ViewsPanel::Scores, ViewsPanel::Original);
        HeatmapView* transformed = p.at(ViewsPanel::Scores, ViewsPanel::Transformed);
        QVERIFY(sameRange(original->drawnRange(), transformed->drawnRange()));
        QCOMPARE(original->drawnRange().lo, 1.0);
        QCOMPARE(original->drawnRange().hi, 6.0);
        QVERIFY(original->cellColour(1, 1) != transformed->cellColour(1, 1)); // 6 and 3
        QCOMPARE(original->colourLabel(), QString("score"));
        QCOMPARE(p.at(ViewsPanel::Output, ViewsPanel::Original)->colourLabel(),
                 QString("output value"));
        QCOMPARE(p.at(ViewsPanel::Output, ViewsPanel::Original)->plot()->xAxis->label(),
                 QString("feature"));

        p.views.perMapScalesBox()->setChecked(true);
        QVERIFY(!sameRange(original->drawnRange(), transformed->drawnRange()));
        QCOMPARE(transformed->drawnRange().lo, 2.0);
        QCOMPARE(original->cellColour(1, 1), transformed->cellColour(1, 1)); // both the top
        p.views.perMapScalesBox()->setChecked(false);
        QVERIFY(sameRange(original->drawnRange(), transformed->drawnRange()));
    }

    void roundingOnlyDifferencesAreDrawnNeutral() {
        // Without positions attention is permutation-equivariant: in float32 the difference is
        // rounding at most.
        Scenario s = loadScenario("builtin:equivariant-block");
        s.precision = Precision::Float32;
        Panel p(s);
        HeatmapView* diff = p.at(ViewsPanel::Output, ViewsPanel::Difference);
        const ViewMatrix& m = diff->matrix();
        QVERIFY(m.tolerance > 0);
        QVERIFY(m.values.cwiseAbs().maxCoeff() > 0); // rounding there is
        QVERIFY(m.values.cwiseAbs().maxCoeff() <= m.tolerance);
        QVERIFY(diff->colourLabel().contains("drawn neutral"));
        for (int i = 0; i < m.values.rows(); ++i)
            for (int j = 0; j < m.values.cols(); ++j)
                QCOMPARE(diff->cellColour(i, j), neutral());
    }

    void aDifferenceAboveTheToleranceIsColouredAndRoundingIsNot() {
        HeatmapView view("difference", HeatmapView::Scale::Diverging);
        ViewMatrix m;
        m.values = Eigen::MatrixXd{{1e-8, -0.5, 3e-8}};
        m.tolerance = 1.2e-7;
        view.setMatrix(m);
        QCOMPARE(view.cellColour(0, 0), neutral());
        QCOMPARE(view.cellColour(0, 2), neutral());
        QVERIFY(view.cellColour(0, 1) != neutral());
        QVERIFY(view.colourLabel().contains("±tol = 1.2e-7 drawn neutral"));
        QCOMPARE(view.plotMessage(), QString());
    }

    void anExactlyZeroDifferenceSaysSo() {
        Panel p(loadScenario("builtin:equivariant-block")); // exact: f(P X) = P f(X)
        HeatmapView* diff = p.at(ViewsPanel::Output, ViewsPanel::Difference);
        QCOMPARE(diff->matrix().values.cwiseAbs().maxCoeff(), 0.0);
        QCOMPARE(diff->plotMessage(), QString("exactly 0"));
        QCOMPARE(p.at(ViewsPanel::Output, ViewsPanel::Original)->plotMessage(), QString());
    }

    void numbersAreWrittenInSmallMapsOnly() {
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.resize(500, 450);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        ViewMatrix small = square(8, 37.7123);
        small.exactText.assign(64, "1822795/48297");
        small.exactText[0] = "7/9";
        view.setMatrix(small);
        QCoreApplication::processEvents();
        QCOMPARE(view.cellNumber(0, 0), QString("7/9"));
        QCOMPARE(view.cellNumber(7, 7), QString("37.7"));
        QVERIFY(view.cellText(7, 7).contains("1822795/48297")); // the exact value stays
        view.setNumbers(HeatmapView::Numbers::Off);
        QCOMPARE(view.cellNumber(0, 0), QString());
        view.setNumbers(HeatmapView::Numbers::Auto);

        view.setMatrix(square(512, 0.25));
        QCoreApplication::processEvents();
        QCOMPARE(view.cellNumber(0, 0), QString());
        view.setNumbers(HeatmapView::Numbers::On); // forced, but cells are below a pixel
        QCoreApplication::processEvents();
        QCOMPARE(view.cellNumber(0, 0), QString());
        view.resize(900, 800);
        view.setMatrix(square(20, 0.25)); // forced on a 20 x 20 map: cells are large enough
        QCoreApplication::processEvents();
        QCOMPARE(view.cellNumber(19, 19), QString("0.25"));
    }

    void theNumbersBoxForcesNumbersOffAndOn() {
        Panel p(loadScenario(std::string("builtin:") + kDefaultPreset));
        HeatmapView* weights = p.at(ViewsPanel::Weights, ViewsPanel::Original);
        QCOMPARE(weights->cellNumber(1, 1), QString("7/9")); // automatic on a 2 x 2 map
        p.views.numbersBox()->setCheckState(Qt::Unchecked);
        QCOMPARE(weights->cellNumber(1, 1), QString());
        p.views.numbersBox()->setCheckState(Qt::Checked);
        QCOMPARE(weights->cellNumber(1, 1), QString("7/9"));
    }

    void presentationModeEnlargesTheFonts() {
        Panel p(loadScenario(std::string("builtin:") + kDefaultPreset));
        HeatmapView* view = p.at(ViewsPanel::Weights, ViewsPanel::Original);
        const double before = view->titleFont().pointSizeF();
        p.views.setPresentation(true);
        QVERIFY(view->titleFont().pointSizeF() >= 1.5 * before);
        QVERIFY(view->plot()->xAxis->tickLabelFont().pointSizeF() > 7);
        p.views.setPresentation(false);
        QCOMPARE(view->titleFont().pointSizeF(), before);
    }
};

QTEST_MAIN(TestUiScales)
#include "test_ui_scales.moc"
