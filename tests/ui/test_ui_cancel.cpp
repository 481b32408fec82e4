// SPDX-License-Identifier: GPL-3.0-or-later
// Stopping and rerunning checks in the explorer: Cancel stops a long check at once and leaves the
// views and verdicts that were there; a second click where Cancel was starts nothing; a new
// parameter for one property runs that property alone again while the others keep theirs (and
// after a cancel too).
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "ui/panels/property_panel.h"
#include "ui_support.h"

#include <QElapsedTimer>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTreeWidget>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// The panel's row of property `name`, or -1.
int rowOf(MainWindow& w, const QString& name) {
    QTreeWidget* tree = w.properties()->tree();
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->data(0, Qt::UserRole).toString() == name) return i;
    return -1;
}

/// The verdict on screen for row `row`, or null.
const PropertyReport* reportAt(MainWindow& w, int row) {
    return w.properties()->report(
        w.properties()->tree()->topLevelItem(row)->data(0, Qt::UserRole).toString());
}

/// What a verdict says, to compare before and after: verdict, deviation and what was checked.
QString reportText(const PropertyReport* r) {
    if (!r) return "none";
    return QString::fromStdString(std::string(verdictName(r->verdict)) + " " +
                                  r->maxDeviation.json().dump() + " " + r->checked.dump());
}

/// The default scenario in float64 on 4,096 generated tokens, checking `checks` on each edit.
Scenario largeScenario(const std::vector<std::string>& checks) {
    std::string preset = "builtin:";
    preset += kDefaultPreset;
    Scenario s = loadScenario(preset);
    s.precision = Precision::Float64;
    s.tokens = TokenSpec::random(4096, s.d(), 1);
    s.permutation = s.permutation.resizedTo(4096);
    s.checks.clear();
    for (const std::string& name : checks)
        s.checks.push_back({name, nlohmann::json::object()});
    return s;
}

/// The indices that `spy` (of an (int, ...) signal) carried.
QList<int> indices(const QSignalSpy& spy) {
    QList<int> out;
    for (const QList<QVariant>& call : spy)
        out << call.at(0).toInt();
    return out;
}

} // namespace

class TestUiCancel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void cancelStopsALargeCheckAtOnceAndKeepsWhatWasThere() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        // The gradient of 4,096 tokens runs for seconds; permutation-equivariance is done sooner.
        QSignalSpy ready(w.compute(), &ComputeService::checkReady);
        QSignalSpy running(w.compute(), &ComputeService::checkRunning);
        w.document()->reset(largeScenario({"permutation-equivariance", "gradient"}), QString());
        QTRY_VERIFY_WITH_TIMEOUT(w.properties()->report("permutation-equivariance"), 30000);
        const int gradient = rowOf(w, "gradient");
        QTRY_VERIFY_WITH_TIMEOUT(indices(running).contains(gradient), 30000);
        QVERIFY(w.compute()->isBusy());
        QTest::qWait(300); // well inside the gradient's passes
        const QString verdictBefore =
            reportText(w.properties()->report("permutation-equivariance"));
        QSignalSpy views(w.compute(), &ComputeService::viewsReady);
        QSignalSpy finished(w.compute(), &ComputeService::checksFinished);
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        QTest::mouseClick(w.properties()->cancelButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        // A behaviour bound: the check polls its cancel flag many times a second (it ran for
        // over 15 s before noticing when its passes did not).
        QVERIFY2(sinceCancel.elapsed() < 3000, qPrintable(QString::number(sinceCancel.elapsed())));
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QCOMPARE(w.properties()->verdictText("gradient"), QString("cancelled"));
        QCOMPARE(reportText(w.properties()->report("permutation-equivariance")), verdictBefore);
        QVERIFY(!w.properties()->report("gradient"));
        QCOMPARE(views.size(), 0); // the views on screen stay: the cancel computed none again
    }

    void aSecondClickWhereCancelWasStartsNothing() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.compute()->setCheckDelay(2000);
        w.compute()->runAllChecks();
        PropertyPanel* panel = w.properties();
        QTRY_VERIFY(panel->progressBar()->isVisible());
        QPushButton* cancel = panel->cancelButton();
        const QPoint at = cancel->mapTo(panel, cancel->rect().center());
        QSignalSpy finished(w.compute(), &ComputeService::checksFinished);
        QSignalSpy runAll(panel, &PropertyPanel::runAllRequested);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(panel->runAllButton()->isVisible()); // the cancel leaves Run all to press
        // The second click of a double click, where the first one was.
        QWidget* under = panel->childAt(at);
        QVERIFY(under);
        QTest::mouseClick(under, Qt::LeftButton, {}, under->mapFrom(panel, at));
        QCoreApplication::processEvents();
        QCOMPARE(runAll.size(), 0);
        QVERIFY(!w.compute()->isBusy());
        QVERIFY(w.properties()->verdictText("gradient") == "cancelled" ||
                w.properties()->verdictText("gradient") == "not run");
        // A parameter set after the cancel runs its property all the same.
        w.compute()->setCheckDelay(0);
        QSignalSpy rerunFinished(w.compute(), &ComputeService::checksFinished);
        w.compute()->setChosenParameters("permutation-equivariance", {{"samples", 0}});
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("fails"));
        // It finished on its own: not reported as cancelled because the pass before it was.
        QCOMPARE(rerunFinished.size(), 1);
        QCOMPARE(rerunFinished.front().front().toBool(), false);
    }

    void aNewParameterRerunsThatPropertyAloneWhileTheOthersRun() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.compute()->setCheckDelay(100); // the checks are seen running
        QSignalSpy started(w.compute(), &ComputeService::checksStarted);
        QSignalSpy running(w.compute(), &ComputeService::checkRunning);
        QSignalSpy ready(w.compute(), &ComputeService::checkReady);
        QSignalSpy restarted(w.compute(), &ComputeService::checkRestarted);
        w.compute()->runAllChecks();
        const int property = rowOf(w, "permutation-equivariance");
        QTRY_VERIFY(indices(ready).contains(property) && ready.size() >= 3);
        QVERIFY(w.compute()->isBusy()); // the others still run
        const int rows = w.properties()->tree()->topLevelItemCount();
        std::map<int, QString> before; // the verdicts given so far, but the one rerun
        for (const int i : indices(ready))
            if (i != property) before[i] = reportText(reportAt(w, i));
        QCOMPARE(started.size(), 1);
        const int steps = w.properties()->progressBar()->maximum();
        w.compute()->setChosenParameters("permutation-equivariance", {{"samples", 0}});
        QCOMPARE(w.properties()->progressBar()->maximum(), steps + 1); // one more step, not 1
        QVERIFY(waitForIdle(w));

        QCOMPARE(started.size(), 1); // no new pass over every property
        QCOMPARE(indices(restarted), QList<int>{property});
        // Every property ran once, and the one whose parameter changed once more.
        QCOMPARE(running.size(), rows + 1);
        QCOMPARE(indices(running).count(property), 2);
        QCOMPARE(indices(ready).count(property), 2);
        for (int i = 0; i < rows; ++i)
            if (i != property) QCOMPARE(indices(ready).count(i), 1);
        for (const auto& [i, text] : before)
            QCOMPARE(reportText(reportAt(w, i)), text);
        const PropertyReport* rerun = w.properties()->report("permutation-equivariance");
        QVERIFY(rerun);
        QCOMPARE(rerun->checked["planned"], nlohmann::json(1)); // the scenario's σ, no samples
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("fails"));
    }
};

QTEST_MAIN(TestUiCancel)
#include "test_ui_cancel.moc"
