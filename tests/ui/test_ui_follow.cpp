// SPDX-License-Identifier: GPL-3.0-or-later
// The views follow the selected property (ui/document/comparison_choice.h): clicking
// logit-symmetry in builtin:alibi-causal draws S beside Sᵀ in the middle column, titled so;
// choosing the Transform tab, or editing the transformation, draws the transformation again. A
// witness is outlined on the views of its own comparison only (the shrunk one on its few tokens).
#include "ui/document/comparison_choice.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/transform_editor.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QCheckBox>
#include <QTabWidget>
#include <QTreeWidget>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

HeatmapView* middleScores(MainWindow& w) {
    return w.views()->view(ViewsPanel::Scores, ViewsPanel::Transformed);
}

Eigen::MatrixXd originalScores(MainWindow& w) {
    return w.views()->view(ViewsPanel::Scores, ViewsPanel::Original)->matrix().values;
}

/// Runs `action` and waits until the views it causes have been drawn.
template <class F>
bool viewsAfter(MainWindow& w, F&& action) {
    QSignalSpy views(w.compute(), &ComputeService::viewsReady);
    action();
    const bool drawn = views.wait(60000);
    QCoreApplication::processEvents();
    return drawn;
}

/// Clicks the property list's row `name`, as a user does.
void clickProperty(MainWindow& w, const QString& name) {
    QTreeWidget* tree = w.properties()->tree();
    const auto items = tree->findItems(name, Qt::MatchExactly, 0);
    QVERIFY(!items.isEmpty());
    tree->scrollToItem(items.front());
    const QRect row = tree->visualItemRect(items.front()); // may be wider than the viewport
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                      QPoint(row.left() + 8, row.center().y()));
}

/// Opens `preset` and clicks the row `property` once every check has answered.
void openAndFollow(MainWindow& w, const QString& preset, const QString& property) {
    w.show();
    QVERIFY(w.openSource(preset));
    QVERIFY(waitForIdle(w));
    // A new scenario follows its first failure already (its views drawn when idle).
    if (w.comparison()->property() != property)
        QVERIFY(viewsAfter(w, [&] { clickProperty(w, property); }));
    QCOMPARE(w.comparison()->property(), property);
}

} // namespace

class TestUiFollow : public QObject {
    Q_OBJECT
private slots:
    void logitSymmetryDrawsSBesideItsTranspose() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:alibi-causal"));
        QVERIFY(waitForIdle(w));
        // Its first failure, logit symmetry, is followed at first; the Transform tab draws the
        // transformation: σ is the identity there, f(X) beside an identical f(P X).
        QCOMPARE(w.comparison()->property(), QString("logit-symmetry"));
        QVERIFY(viewsAfter(w, [&] { w.showEditorTab(w.transformEditor()); }));
        QCOMPARE(middleScores(w)->title(), QString("S  f(P X)"));
        QVERIFY(middleScores(w)->matrix().values == originalScores(w));

        QVERIFY(viewsAfter(w, [&] { clickProperty(w, "logit-symmetry"); }));
        QCOMPARE(middleScores(w)->title(), QString("S  transposed"));
        const Eigen::MatrixXd s = originalScores(w);
        QVERIFY(middleScores(w)->matrix().values == s.transpose());
        QVERIFY(s != s.transpose()); // the causal ALiBi bias is antisymmetric
        HeatmapView* difference = w.views()->view(ViewsPanel::Scores, ViewsPanel::Difference);
        QCOMPARE(difference->title(), QString("S  transposed − f(X)"));
        QVERIFY(difference->matrix().values == s.transpose() - s);
        // The outputs have no transpose: the output row says so instead of drawing a map.
        QCOMPARE(
            w.views()->view(ViewsPanel::Output, ViewsPanel::Transformed)->matrix().values.size(),
            Eigen::Index(0));
        QVERIFY(w.views()->current()->transformText.starts_with("logit-symmetry"));
    }

    void theShrunkWitnessIsDrawnAsItsOwnSmallerInput() {
        // Ticking "show the smallest witness" draws the two tokens it keeps, not an outline on
        // the six-token maps.
        MainWindow w;
        openAndFollow(w, "builtin:rope-shift", "permutation-equivariance");
        QCOMPARE(originalScores(w).rows(), 6);
        QVERIFY(viewsAfter(w, [&] { w.properties()->shrinkBox()->setChecked(true); }));
        QCOMPARE(originalScores(w).rows(), 2);
        QVERIFY(w.views()->current()->transformText.find("smallest witness") != std::string::npos);
        QVERIFY(viewsAfter(w, [&] { w.properties()->shrinkBox()->setChecked(false); }));
        QCOMPARE(originalScores(w).rows(), 6);
    }

    void theWitnessIsOutlinedOnTheViewsItBelongsTo() {
        // causal-model fails equivariance at output row 5, feature 0 of f(P X) − P f(X), σ the
        // reversal: row 5 of P f(X) is row 0 of f(X). Its smallest witness keeps tokens 4 and 5
        // and names its cell in them: row 0 (token 4) of the difference, row 1 of f(X).
        MainWindow w;
        openAndFollow(w, "builtin:causal-model", "permutation-equivariance");
        HeatmapView* output = w.views()->view(ViewsPanel::Output, ViewsPanel::Difference);
        QCOMPARE(output->matrix().values.rows(), 6);
        QCOMPARE(output->highlights(), QList<QPoint>{QPoint(5, 0)});
        QCOMPARE(w.views()->view(ViewsPanel::Output, ViewsPanel::Original)->highlights(),
                 QList<QPoint>{QPoint(0, 0)});
        // The shrunk witness is not outlined on the six tokens still on screen, but on its own two
        // once they are drawn.
        QVERIFY(viewsAfter(w, [&] {
            w.properties()->shrinkBox()->setChecked(true);
            QCOMPARE(output->highlightCount(), 0);
        }));
        QCOMPARE(w.views()->current()->original.labels, (std::vector<std::string>{"x4", "x5"}));
        QCOMPARE(output->highlights(), QList<QPoint>{QPoint(0, 0)});
        QCOMPARE(w.views()->view(ViewsPanel::Output, ViewsPanel::Original)->highlights(),
                 QList<QPoint>{QPoint(1, 0)});
        QVERIFY(viewsAfter(w, [&] { w.properties()->shrinkBox()->setChecked(false); }));
        QCOMPARE(output->highlights(), QList<QPoint>{QPoint(5, 0)});
        // Another transformation draws other maps: the witness is not theirs.
        ExplorerState next = w.document()->state();
        next.transform.kind = Transform::Kind::Shift;
        QVERIFY(viewsAfter(w, [&] { QVERIFY(w.document()->edit(next, "shift")); }));
        QVERIFY(waitForIdle(w));
        QVERIFY(w.comparison()->property().isEmpty());
        for (HeatmapView* v : w.views()->allViews())
            QCOMPARE(v->highlightCount(), 0);
    }

    void followingLocalityKeepsItsPairOutlinedOnTheDependencyPage() {
        // window-stray-cell's locality witness: output 3 moved when token 10 was perturbed. The
        // views drawn for locality are of the same scenario: its dependency page keeps the pair.
        MainWindow w;
        openAndFollow(w, "builtin:window-stray-cell", "locality");
        QVERIFY(w.views()->current()->transformText.starts_with("locality"));
        QCOMPARE(w.views()->dependencyView()->highlights(), QList<QPoint>{QPoint(3, 10)});
        QCOMPARE(w.views()->excessView()->highlights(), QList<QPoint>{QPoint(3, 10)});
    }

    void theTransformTabDrawsTheTransformationAgain() {
        MainWindow w;
        openAndFollow(w, "builtin:alibi-causal", "logit-symmetry");
        QVERIFY(viewsAfter(w, [&] { w.showEditorTab(w.transformEditor()); }));
        QVERIFY(w.comparison()->property().isEmpty());
        QCOMPARE(middleScores(w)->title(), QString("S  f(P X)"));
        QVERIFY(middleScores(w)->matrix().values == originalScores(w));
    }

    void shiftInvarianceDrawsTheShiftAndAnEditOfTheTransformationLeavesIt() {
        MainWindow w;
        openAndFollow(w, "builtin:rope-shift", "shift-invariance");
        QCOMPARE(middleScores(w)->title(), QString("S  f(X), positions + 1"));
        QVERIFY(w.views()->current()->transformText.starts_with("shift-invariance"));
        // A token edit keeps the property followed.
        Scenario edited = w.document()->scenario();
        edited.name += " (edited)";
        QVERIFY(viewsAfter(w, [&] { QVERIFY(w.document()->editScenario(edited, "rename")); }));
        QCOMPARE(middleScores(w)->title(), QString("S  f(X), positions + 1"));
        // Editing the transformation draws it.
        ExplorerState next = w.document()->state();
        next.transform.kind = Transform::Kind::Shift;
        next.transform.shift = 3;
        QVERIFY(viewsAfter(w, [&] { QVERIFY(w.document()->edit(next, "shift")); }));
        QVERIFY(w.comparison()->property().isEmpty());
        QCOMPARE(middleScores(w)->title(), QString("S  f(X), positions + 3"));
    }

    void aComparisonTheScenarioCannotDrawShowsTheTransformationAndWhy() {
        MainWindow w;
        openAndFollow(w, "builtin:ssm-decay", "kv-cache"); // ssm keeps no KV cache
        QCOMPARE(middleScores(w)->title(), QString("S  f(P X)"));
        const std::vector<std::string>& warnings = w.views()->current()->warnings;
        QVERIFY(!warnings.empty());
        QVERIFY2(warnings.front().starts_with("kv-cache: ") &&
                     warnings.front().find("ssm") != std::string::npos,
                 warnings.front().c_str());
        // An edit's checks still run.
        QSignalSpy started(w.compute(), &ComputeService::checksStarted);
        Scenario edited = w.document()->scenario();
        edited.name += " (edited)";
        QVERIFY(w.document()->editScenario(edited, "rename"));
        QVERIFY(waitForIdle(w));
        QCOMPARE(started.count(), 1);
    }
};

QTEST_MAIN(TestUiFollow)
#include "test_ui_follow.moc"
