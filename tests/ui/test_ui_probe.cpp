// SPDX-License-Identifier: GPL-3.0-or-later
// File > Probe Program… through the real widgets, on the numpy programs of examples/probe and
// tests/probe_programs: the dialog's Run finds a planted leak (verdicts, and the Dependencies
// page's measured map, intended mask and +1 at the leak); a token edit probes again with the
// newest edit winning; Cancel ends a hanging program's process group at once; a failing program
// shows its standard error and leaves the scenario as it was; Stop probing brings the model's
// checks back; and opening a scenario or a recent file never starts a program.
#include "core/io/scenario_reader.h"
#include "ui/document/probe_service.h"
#include "ui/document/scenario_document.h"
#include "ui/panels/probe_banner.h"
#include "ui/panels/probe_dialog.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/probe_mode.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>

#include <csignal>
#include <unistd.h>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

QString python() {
    return qEnvironmentVariable("ATTNLAB_PYTHON");
}

/// `script` of the source tree, quoted for the dialog's arguments field.
QString script(const char* path) {
    return QString("\"%1/%2\"").arg(ATTNLAB_SOURCE_DIR, path);
}

const char* kAttention = "examples/probe/numpy_attention.py";
const char* kBad = "tests/probe_programs/bad_program.py";

/// File > Probe Program…, its program the Python with numpy and its arguments `arguments`.
ProbeDialog* openDialog(MainWindow& w, const QString& arguments) {
    w.findChild<QAction*>("probeProgram")->trigger();
    ProbeDialog* shown = nullptr;
    for (ProbeDialog* d : w.findChildren<ProbeDialog*>())
        if (d->isVisible()) shown = d;
    if (shown) {
        shown->programField()->setText(python());
        shown->argumentsField()->setText(arguments);
    }
    return shown;
}

/// Processes events until the newest probe has been answered.
bool waitForProbe(MainWindow& w, int timeoutMs = 60000) {
    QElapsedTimer clock;
    clock.start();
    while (w.probe()->service()->isRunning() && clock.elapsed() < timeoutMs)
        QTest::qWait(20);
    QCoreApplication::processEvents();
    return !w.probe()->service()->isRunning();
}

/// Probes the leaky causal layer with the dialog's defaults (the token editor's values, the mask
/// editor's mask, persistent), on the causal model's six tokens.
bool probeTheLeak(MainWindow& w) {
    if (!w.openSource("builtin:causal-model") || !waitForIdle(w)) return false;
    ProbeDialog* dialog = openDialog(w, script(kAttention) + " --mask causal --bug leak");
    if (!dialog) return false;
    QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
    return w.probe()->isOn() && waitForProbe(w) && w.probe()->result();
}

/// The names of the panel's rows.
QStringList rowNames(MainWindow& w) {
    QStringList names;
    for (int i = 0; i < w.properties()->tree()->topLevelItemCount(); ++i)
        names << PropertyPanel::propertyOf(w.properties()->tree()->topLevelItem(i));
    return names;
}

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

/// The children of this process running `script`.
QList<pid_t> childrenRunning(const QString& script) {
    QList<pid_t> found;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        const pid_t pid = pid_t(entry.toInt(&number));
        if (!number) continue;
        const QString stat = readText(QString("/proc/%1/stat").arg(pid));
        const QStringList fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 2 || fields[1].toInt() != getpid() || fields[0] == "Z") continue;
        if (readText(QString("/proc/%1/cmdline").arg(pid)).contains(script)) found << pid;
    }
    return found;
}

/// Whether process `pid` is gone (a zombie reparented to a container's init counts as gone).
bool gone(pid_t pid) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    const QString stat = readText(QString("/proc/%1/stat").arg(pid));
    return stat.mid(stat.lastIndexOf(')') + 2, 1) == "Z";
}

} // namespace

class TestUiProbe : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init() {
        if (python().isEmpty())
            QSKIP("no python3 with numpy was found at configure time (Debian: python3-numpy)");
    }

    // (a) The dialog filled and Run pressed: the leak of token 5 into row 2 is found, and drawn.
    void runFromTheDialogFindsTheLeak() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:causal-model")); // six tokens under a causal mask
        QVERIFY(waitForIdle(w));
        ProbeDialog* dialog = openDialog(w, script(kAttention) + " --mask causal --bug leak");
        QVERIFY(dialog);
        QCOMPARE(dialog->maskBox()->currentIndex(), int(ProbeDialog::EditorMask));
        QVERIFY(dialog->persistentBox()->isChecked());
        // The arguments are a list of words, never a shell's command line.
        QCOMPARE(dialog->choice().command,
                 QStringList({python(), QString(ATTNLAB_SOURCE_DIR) + "/" + kAttention, "--mask",
                              "causal", "--bug", "leak"}));
        QVERIFY(!w.probe()->isOn()); // nothing runs before Run
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(w.probe()->isOn());
        QVERIFY(waitForProbe(w));
        QVERIFY(w.probe()->result());

        PropertyPanel* panel = w.properties();
        QCOMPARE(rowNames(w),
                 QStringList({"mask", "causality", "prefix-consistency", "batch-invariance"}));
        QCOMPARE(panel->verdictText("causality"), QString("fails"));
        QCOMPARE(panel->verdictText("mask"), QString("fails"));
        QCOMPARE(panel->verdictText("batch-invariance"), QString("holds"));
        QCOMPARE(w.probe()->result()->intendedMaskText,
                 std::string("the mask editor's mask (layer 0)"));
        QVERIFY(w.probe()->banner()->isVisible());
        QVERIFY2(w.probe()->banner()->text().contains("numpy_attention.py --mask causal --bug "
                                                      "leak — ") &&
                     w.probe()->banner()->text().contains(" calls, "),
                 qPrintable(w.probe()->banner()->text()));

        // The Dependencies page: the measured map, the intended (causal) mask, +1 at the leak.
        ViewsPanel* views = w.views();
        QCOMPARE(views->dependencySource(), ViewsPanel::DependencySource::Probe);
        QCOMPARE(views->dependencyView()->title(), QString("measured by probing"));
        QCOMPARE(views->boundView()->title(), QString("intended mask"));
        QCOMPARE(views->excessView()->title(), QString("+1 leak, −1 dead key"));
        const Eigen::MatrixXd& bound = views->boundView()->matrix().values;
        QCOMPARE(int(bound.rows()), 6);
        QCOMPARE(bound(2, 5), 0.0);
        QCOMPARE(bound(5, 2), 1.0);
        const Eigen::MatrixXd& excess = views->excessView()->matrix().values;
        QCOMPARE(excess(2, 5), 1.0);
        QCOMPARE(int((excess.array() != 0).count()), 1);
        QCOMPARE(views->dependencyView()->matrix().values(2, 5), 1.0);
        QVERIFY2(views->dependencySummary().contains("1 leak") &&
                     views->dependencySummary().contains("0 dead keys"),
                 qPrintable(views->dependencySummary()));
        // The first failing verdict is selected, its witness outlined on the page.
        QCOMPARE(PropertyPanel::propertyOf(panel->tree()->currentItem()), QString("mask"));
        QCOMPARE(views->dependencyView()->highlights(), QList<QPoint>({QPoint(2, 5)}));
        QCOMPARE(views->excessView()->highlights(), QList<QPoint>({QPoint(2, 5)}));
        QCOMPARE(views->tabs()->currentIndex(), 1);
        panel->select("causality"); // its witness: the same pair
        QCOMPARE(views->dependencyView()->highlights(), QList<QPoint>({QPoint(2, 5)}));
        // The model's own verdicts, computed after an edit, do not replace the probe's.
        QCOMPARE(rowNames(w).size(), 4);
    }

    // (b) A token edit probes again; of two quick edits the newest wins.
    void aTokenEditProbesAgainNewestWinning() {
        MainWindow w;
        w.show();
        QVERIFY(probeTheLeak(w));
        QStringList progress; // the progress bar's text at each call
        connect(w.probe()->service(), &ProbeService::progress, &w, [&] {
            progress << w.properties()->progressBar()->format() +
                            (w.properties()->progressBar()->isVisible() ? "" : " (hidden)");
        });
        QSignalSpy finished(w.probe()->service(), &ProbeService::finished);
        typeIntoCell(w.tokensEditor(), 0, 1, "0.5");
        QVERIFY(w.probe()->service()->isRunning());
        typeIntoCell(w.tokensEditor(), 0, 1, "0.25");
        QVERIFY(waitForProbe(w));
        QCOMPARE(finished.count(), 1); // the first edit's probe was superseded, its end dropped
        const Eigen::MatrixXd tokens = w.document()->scenario().tokens.materialize<double>();
        QCOMPARE(tokens(0, 1), 0.25);
        QVERIFY(w.probe()->result()->tokens == tokens);
        QVERIFY(!progress.isEmpty());
        QVERIFY2(progress.last().startsWith("call ") && progress.last().contains(" sequences)"),
                 qPrintable(progress.join(", ")));
        QVERIFY2(!progress.last().contains("hidden"), qPrintable(progress.last()));
        QCOMPARE(w.properties()->verdictText("mask"), QString("fails"));
        // An edit that leaves the tokens and the mask as they were does not probe.
        ExplorerState next = w.document()->state();
        next.scenario.notes += " edited";
        QVERIFY(w.document()->edit(next, "notes"));
        QVERIFY(!w.probe()->service()->isRunning());
    }

    // (c) Cancel ends a hanging program and everything it started, at once.
    void cancelEndsAHangingProgramsProcessGroup() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath("child.pid");
        qputenv("ATTNLAB_TEST_PIDFILE", pidFile.toUtf8());
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        ProbeDialog* dialog = openDialog(w, script(kBad) + " --fail hang-child");
        QVERIFY(dialog);
        dialog->persistentBox()->setChecked(false); // one-shot: PROGRAM ARGS IN.npy OUT.npy
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile), 30000);
        const pid_t grandchild = pid_t(readText(pidFile).toInt());
        QVERIFY(grandchild > 0);
        const QList<pid_t> programs = childrenRunning("bad_program.py");
        QCOMPARE(programs.size(), 1);
        QVERIFY(w.properties()->cancelButton()->isEnabled());

        QSignalSpy cancelled(w.probe()->service(), &ProbeService::cancelled);
        QElapsedTimer clock;
        clock.start();
        QTest::mouseClick(w.properties()->cancelButton(), Qt::LeftButton);
        QVERIFY(cancelled.wait(2000));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(childrenRunning("bad_program.py").isEmpty());
        QVERIFY(gone(programs.front()));
        QTRY_VERIFY_WITH_TIMEOUT(gone(grandchild), 1000);
        QCOMPARE(w.properties()->verdictText("mask"), QString("cancelled"));
        QVERIFY(w.probe()->isOn()); // cancelled, still probing: an edit would probe again
        qunsetenv("ATTNLAB_TEST_PIDFILE");
    }

    // (d) A failing program: its standard error in the window, the scenario as it was.
    void aFailingProgramShowsItsErrorAndChangesNothing() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:causal-model"));
        QVERIFY(waitForIdle(w));
        const ExplorerState before = w.document()->state();
        const int steps = w.document()->undoStack()->count();
        ProbeDialog* dialog = openDialog(w, script(kBad) + " --fail exit");
        QVERIFY(dialog);
        dialog->persistentBox()->setChecked(false);
        QSignalSpy failed(w.probe()->service(), &ProbeService::failed);
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(waitForProbe(w));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(w.errorText().contains("the last line of stderr") &&
                     w.errorText().contains("exited with status 3"),
                 qPrintable(w.errorText()));
        QVERIFY(w.document()->state() == before);
        QCOMPARE(w.document()->undoStack()->count(), steps);
        QVERIFY(!w.document()->isModified());
        QVERIFY(!w.probe()->result());
        for (const QString& name : rowNames(w)) // no verdict shown as current
            QCOMPARE(w.properties()->verdictText(name), QString("failed"));
        QVERIFY(w.properties()->reports().empty());
        QCOMPARE(w.views()->dependencyView()->matrix().values.size(), 0);
        QVERIFY(w.probe()->banner()->text().endsWith("failed"));
    }

    // (e) Stop probing: the program ends and the panel shows the model's checks again.
    void stopProbingReturnsToTheModelsChecks() {
        MainWindow w;
        w.show();
        QVERIFY(probeTheLeak(w));
        QVERIFY(!childrenRunning("numpy_attention.py").isEmpty()); // persistent: kept running
        QAction* stop = w.findChild<QAction*>("stopProbing");
        QVERIFY(stop->isEnabled());
        QTest::mouseClick(w.probe()->banner()->stopButton(), Qt::LeftButton);
        QVERIFY(!w.probe()->isOn());
        QVERIFY(!stop->isEnabled());
        QVERIFY(w.probe()->banner()->isHidden());
        QVERIFY(waitForIdle(w));
        QStringList checks;
        for (const CheckSpec& c : w.compute()->checks())
            checks << QString::fromStdString(c.name);
        QCOMPARE(rowNames(w), checks);
        QCOMPARE(w.properties()->verdictText("causality"), QString("holds")); // the model's
        QCOMPARE(w.views()->dependencySource(), ViewsPanel::DependencySource::Model);
        QCOMPARE(w.views()->dependencyView()->title(), QString("measured dependency"));
        QTRY_VERIFY_WITH_TIMEOUT(childrenRunning("numpy_attention.py").isEmpty(), 5000);
    }

    // (f) Opening a scenario, while probing or after, or a recent file, never starts a program;
    // the dialog prefilled with the last command runs nothing until Run.
    void openingFilesNeverStartsAProgram() {
        MainWindow w;
        w.show();
        QVERIFY(probeTheLeak(w));
        QSignalSpy started(w.probe()->service(), &ProbeService::started);
        QVERIFY(w.openSource("builtin:window-stray-cell")); // while probing: probing ends
        QVERIFY(!w.probe()->isOn());
        QTRY_VERIFY_WITH_TIMEOUT(childrenRunning("numpy_attention.py").isEmpty(), 5000);
        QTemporaryDir dir;
        const QString path = dir.filePath("saved.json");
        QVERIFY(w.saveTo(path)); // now a recent file
        QVERIFY(w.openSource("builtin:causal-model"));
        QAction* recent = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text().contains(path)) recent = a;
        QVERIFY(recent);
        recent->trigger();
        QCOMPARE(w.document()->filePath(), path);
        typeIntoCell(w.tokensEditor(), 0, 0, "0.5"); // an edit after probing ended
        ProbeDialog* dialog = nullptr;
        w.findChild<QAction*>("probeProgram")->trigger();
        for (ProbeDialog* d : w.findChildren<ProbeDialog*>())
            if (d->isVisible()) dialog = d;
        QVERIFY(dialog);
        QCOMPARE(dialog->programField()->text(), python()); // remembered only to fill the field
        QVERIFY(dialog->argumentsField()->text().endsWith("--mask causal --bug leak"));
        dialog->reject();
        QVERIFY(waitForIdle(w));
        QTest::qWait(200);
        QCOMPARE(started.count(), 0);
        QVERIFY(!w.probe()->isOn());
        QVERIFY(!w.probe()->service()->isRunning());
        QVERIFY(childrenRunning("numpy_attention.py").isEmpty());
    }
};

QTEST_MAIN(TestUiProbe)
#include "test_ui_probe.moc"
