// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window's behaviour through its real widgets: Esc closes a drop-down without
// cancelling the checks, a cancel leaves "Run all" to run them again, long checks show their
// progress, the permutation's list follows Swap, Save As adds .json, the error line is dismissed
// without moving the views, the check parameters set in the window change the verdicts, and the
// window fits a 1280x720 screen.
#include "core/io/scenario_writer.h"
#include "ui/editors/tokens_editor.h"
#include "ui/editors/transform_editor.h"
#include "ui/panels/check_parameters_form.h"
#include "ui/panels/error_banner.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/views/elided_label.h"
#include "ui_support.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// A scenario of 12 tokens through one softmax layer whose mask is a window of `radius`.
QString windowScenario(const QTemporaryDir& dir, int radius) {
    const QString path = dir.filePath("window.json");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(QString(R"({"format": "attnlab-scenario", "version": 1, "name": "window",
        "precision": "float64", "tokens": {"random": {"n": 12, "d": 2, "seed": 5}},
        "positional": {"kind": "none"},
        "layers": [{"wq": {"random": {"seed": 21}}, "wk": {"random": {"seed": 22}},
                    "wv": {"random": {"seed": 23}}, "mask": {"kind": "window", "radius": %1}}]})")
                   .arg(radius)
                   .toUtf8());
    return path;
}

/// Selects `property` in the panel and returns the field of its parameter `name`.
template <class Field>
Field* parameterField(MainWindow& w, const QString& property, const QString& name) {
    w.properties()->select(property);
    return qobject_cast<Field*>(w.properties()->parametersForm()->field(name));
}

/// The rows of the panel that say "cancelled".
int cancelledRows(MainWindow& w) {
    int n = 0;
    for (int i = 0; i < w.properties()->tree()->topLevelItemCount(); ++i)
        n += w.properties()->tree()->topLevelItem(i)->text(1) == "cancelled";
    return n;
}

} // namespace

class TestUiWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void escOnADropDownDoesNotCancelAndACancelLeavesRunAll() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.compute()->setCheckDelay(150); // every check waits: they are still running below
        QSignalSpy finished(w.compute(), &ComputeService::checksFinished);
        w.compute()->runAllChecks();
        QComboBox* combo = nullptr;
        for (QComboBox* c : w.findChildren<QComboBox*>())
            if (c->isVisible() && !combo) combo = c;
        QVERIFY(combo);
        combo->showPopup();
        QTRY_VERIFY(QApplication::activePopupWidget());
        // Through the window system, as a real key press: shortcuts see it first.
        QTest::keyClick(QApplication::activePopupWidget()->windowHandle(), Qt::Key_Escape);
        QTRY_VERIFY(!QApplication::activePopupWidget());
        QVERIFY(w.compute()->isBusy());
        w.compute()->setCheckDelay(0);
        QVERIFY(waitForIdle(w));
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).toBool(), false); // the checks were not cancelled
        QCOMPARE(cancelledRows(w), 0);

        // An Esc nobody consumed cancels; Run all then runs them again without an edit.
        w.compute()->setCheckDelay(150);
        w.compute()->runAllChecks();
        w.properties()->tree()->setFocus();
        QTest::keyClick(w.windowHandle(), Qt::Key_Escape);
        QVERIFY(waitForIdle(w));
        QVERIFY(cancelledRows(w) > 0);
        QPushButton* runAll = w.properties()->runAllButton();
        QVERIFY(runAll->isVisible() && runAll->isEnabled());
        w.compute()->setCheckDelay(0);
        QTest::mouseClick(runAll, Qt::LeftButton);
        QVERIFY(waitForIdle(w));
        QCOMPARE(cancelledRows(w), 0);
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("fails"));
    }

    void longChecksShowProgressAndCancelStopsThem() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.compute()->setCheckDelay(2000);
        QSignalSpy finished(w.compute(), &ComputeService::checksFinished);
        QSignalSpy views(w.compute(), &ComputeService::viewsReady);
        w.compute()->runAllChecks();
        QProgressBar* progress = w.properties()->progressBar();
        QTRY_VERIFY(progress->isVisible());
        QTRY_VERIFY(progress->format().contains(": ")); // names the check that runs
        QVERIFY(progress->maximum() > 1);
        QTest::mouseClick(w.properties()->cancelButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 1000); // far sooner than the checks' 2 s
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QVERIFY(!progress->isVisible());
        QVERIFY(w.properties()->runAllButton()->isVisible());
        QCOMPARE(views.size(), 0); // the views on screen were not computed again
    }

    void thePermutationListFollowsSwapAndReverse() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.inputs()->setCurrentIndex(3); // Transform
        QListWidget* list = w.transformEditor()->orderList();
        const int n = w.document()->scenario().n();
        QSignalSpy reset(list->model(), &QAbstractItemModel::modelReset);
        QSignalSpy inserted(list->model(), &QAbstractItemModel::rowsInserted);
        QPushButton* swap = nullptr;
        for (QPushButton* b : w.transformEditor()->findChildren<QPushButton*>())
            if (b->text() == "Swap") swap = b;
        QVERIFY(swap);
        const QString token0 = list->item(0)->text().section(' ', -1);
        const QString token1 = list->item(1)->text().section(' ', -1);
        QTest::mouseClick(swap, Qt::LeftButton); // swaps σ(0) and σ(1)
        // The view heard of the new rows (a blocked model leaves it drawing the old ones).
        QVERIFY(reset.size() + inserted.size() > 0);
        QCOMPARE(list->count(), n);
        QCOMPARE(list->item(0)->text(), "row 0 ← token " + token1);
        QCOMPARE(list->item(1)->text(), "row 1 ← token " + token0);
        // Reverse: the last token comes first.
        reset.clear();
        inserted.clear();
        for (QPushButton* b : w.transformEditor()->findChildren<QPushButton*>())
            if (b->text() == "Reverse") QTest::mouseClick(b, Qt::LeftButton);
        QVERIFY(reset.size() + inserted.size() > 0);
        QCOMPARE(list->item(0)->text(), QString("row 0 ← token %1").arg(n - 1));
    }

    void saveAsAddsJson() {
        QCOMPARE(QString::fromStdString(scenarioSavePath("/tmp/foo").string()),
                 QString("/tmp/foo.json"));
        QCOMPARE(QString::fromStdString(scenarioSavePath("/tmp/foo.scenario").string()),
                 QString("/tmp/foo.scenario"));
        QTemporaryDir dir;
        MainWindow w;
        QVERIFY(w.saveTo(dir.filePath("foo")));
        QVERIFY(QFile::exists(dir.filePath("foo.json")));
        QVERIFY(!QFile::exists(dir.filePath("foo")));
        QCOMPARE(w.document()->filePath(), dir.filePath("foo.json"));
    }

    void theErrorLineIsDismissedAndMovesNothing() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(waitForIdle(w));
        const QRect views = w.views()->geometry();
        const auto sigma = [&w] {
            const Scenario& s = w.document()->scenario();
            return QString::fromStdString(s.permutation.resolve(s.n()).cycles());
        };
        const QString before = sigma();
        w.transformEditor()->applyCycles("(0 0 1)"); // not a bijection: refused
        QVERIFY(!w.errorText().isEmpty());
        QVERIFY(w.errorBanner()->isVisible());
        QApplication::processEvents();
        QCOMPARE(w.views()->geometry(), views); // drawn over the panels, nothing resized
        QCOMPARE(sigma(), before);
        QTest::mouseClick(w.errorBanner()->closeButton(), Qt::LeftButton);
        QVERIFY(w.errorText().isEmpty());
        QVERIFY(!w.errorBanner()->isVisible());
        // Esc closes it too, and cancels nothing while it does.
        w.transformEditor()->applyCycles("(0 9)");
        QVERIFY(w.errorBanner()->isVisible());
        QTest::keyClick(&w, Qt::Key_Escape);
        QVERIFY(!w.errorBanner()->isVisible());
    }

    void theLocalityRadiusSetInTheWindowDecides() {
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(w.openSource(windowScenario(dir, 3)));
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("locality"), QString("holds")); // auto: the bound
        auto* radius = parameterField<QSpinBox>(w, "locality", "radius");
        QVERIFY(radius);
        QVERIFY(radius->text().startsWith("auto"));
        radius->setValue(2); // claims less than the window reaches
        QCOMPARE(w.properties()->verdictText("locality"), QString("computing…"));
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("locality"), QString("fails"));
        QCOMPARE(w.properties()->report("locality")->checked.at("claimed_radius").get<int>(), 2);
        radius = parameterField<QSpinBox>(w, "locality", "radius");
        radius->setValue(3);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("locality"), QString("holds"));
        // The choice stays through an edit of the scenario.
        w.transformEditor()->swap(0, 1);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->report("locality")->checked.at("claimed_radius").get<int>(), 3);
    }

    void theShiftOffsetsSetInTheWindowDecide() {
        MainWindow w; // the default scenario: absolute positions, not shift-invariant
        w.show();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("shift-invariance"), QString("fails"));
        // A shift c in the Transform tab is among the offsets checked when they are left to auto.
        auto* shift = w.transformEditor()->findChild<QSpinBox*>("shift");
        ExplorerState next = w.document()->state();
        next.transform.kind = Transform::Kind::Shift;
        QVERIFY(w.document()->edit(next, "shift"));
        shift->setValue(5);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->report("shift-invariance")->checked.at("offsets").dump(),
                 std::string("[1,7,5]"));
        auto* offsets = parameterField<QLineEdit>(w, "shift-invariance", "offset");
        QVERIFY(offsets);
        QVERIFY(offsets->placeholderText().contains("1, 7, 5"));
        offsets->setText("0");
        emit offsets->editingFinished();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("shift-invariance"), QString("holds"));
        QCOMPARE(w.properties()->report("shift-invariance")->checked.at("offsets").dump(),
                 std::string("[0]"));
        // Text that is no list of integers is refused; the previous value stays.
        offsets = parameterField<QLineEdit>(w, "shift-invariance", "offset");
        offsets->setText("2, x");
        emit offsets->editingFinished();
        QVERIFY(w.errorText().contains("offset"));
        QCOMPARE(offsets->text(), QString("0"));
        QCOMPARE(w.compute()->chosenParameters("shift-invariance").dump(),
                 std::string(R"({"offset":0})"));
    }

    void theWindowFitsA1280x720Screen() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        for (const QString& source : {QString("builtin:window-three-layers"),
                                      QString("builtin:positional-counterexample")}) {
            QVERIFY(w.openSource(source));
            QVERIFY(waitForIdle(w));
            QVERIFY2(w.minimumSizeHint().width() <= 1280 && w.minimumSizeHint().height() <= 720,
                     qPrintable(QString("minimum %1x%2")
                                    .arg(w.minimumSizeHint().width())
                                    .arg(w.minimumSizeHint().height())));
            w.resize(1280, 720);
            QApplication::processEvents();
            QCOMPARE(w.size(), QSize(1280, 720));
        }
        // The verdict table: every column's text whole, without scrolling sideways.
        QTreeWidget* tree = w.properties()->tree();
        for (int c = 0; c < tree->columnCount(); ++c)
            QVERIFY2(tree->columnWidth(c) >=
                         static_cast<QAbstractItemView*>(tree)->sizeHintForColumn(c),
                     qPrintable(QString("column %1").arg(c)));
        QCOMPARE(tree->horizontalScrollBar()->maximum(), 0);
        // The token table's cells are wide enough for their values.
        QTableView* tokens = w.tokensEditor()->table();
        for (int c = 0; c < tokens->model()->columnCount(); ++c)
            QVERIFY2(tokens->columnWidth(c) >=
                         static_cast<QAbstractItemView*>(tokens)->sizeHintForColumn(c),
                     qPrintable(QString("token column %1").arg(c)));
        // The editors fit their panel without scrolling sideways, all but the model's (its rows of
        // weights and parameters scroll).
        for (int t = 0; t < w.inputs()->count(); ++t) {
            w.inputs()->setCurrentIndex(t);
            QApplication::processEvents();
            auto* area = qobject_cast<QScrollArea*>(w.inputs()->currentWidget());
            QVERIFY(area);
            if (w.inputs()->tabText(t) == "Model") continue;
            QVERIFY2(area->horizontalScrollBar()->maximum() == 0,
                     qPrintable(w.inputs()->tabText(t)));
        }
        // The views' summary line is whole, its largest difference first.
        auto* summary = w.views()->findChild<ElidedLabel*>("viewsSummary");
        QVERIFY(summary);
        QVERIFY2(summary->text().startsWith("largest |f(P X) − P f(X)| = 5/9 · "),
                 qPrintable(summary->text()));
        QCOMPARE(summary->text(), summary->fullText());
        // The panels keep their widths while verdicts arrive.
        const QList<int> sizes = w.splitter()->sizes();
        w.compute()->runAllChecks();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.splitter()->sizes(), sizes);
        // The editors' panel collapses from the View menu, giving its room to the views.
        const int viewsWidth = w.views()->width();
        QAction* toggle = w.findChild<QAction*>("toggleEditors");
        QVERIFY(toggle);
        toggle->trigger();
        QApplication::processEvents();
        QVERIFY(!w.inputs()->isVisible());
        QVERIFY(w.views()->width() > viewsWidth);
        for (int i = 0; i < w.splitter()->count(); ++i)
            QVERIFY(w.splitter()->isCollapsible(i));
    }

    void presentationModeEnlargesTheVerdictsAndGivesTheMapsTheRoom() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(waitForIdle(w));
        QAction* presentation = w.findChild<QAction*>("presentation");
        QAction* editors = w.findChild<QAction*>("toggleEditors");
        QVERIFY(presentation && editors);
        const double before = w.properties()->tree()->font().pointSizeF();
        const int viewsWidth = w.views()->width();
        presentation->trigger();
        QApplication::processEvents();
        QVERIFY(!w.inputs()->isVisible());
        QVERIFY(!editors->isChecked());
        QVERIFY(w.views()->width() > viewsWidth);
        QVERIFY(w.properties()->tree()->font().pointSizeF() >= 1.25 * before);
        QCOMPARE(w.properties()->tree()->horizontalScrollBar()->maximum(), 0);
        presentation->trigger(); // back: the editors as they were
        QApplication::processEvents();
        QVERIFY(w.inputs()->isVisible());
        QCOMPARE(w.properties()->tree()->font().pointSizeF(), before);
        // Editors hidden before presentation stay hidden after it.
        editors->trigger();
        presentation->trigger();
        presentation->trigger();
        QApplication::processEvents();
        QVERIFY(!w.inputs()->isVisible());
    }
};

QTEST_MAIN(TestUiWindow)
#include "test_ui_window.moc"
