// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window driven through its real widgets: it opens on the counterexample with the
// exact numbers, a typed cell changes the trace, a bad cell is refused, a permutation updates the
// transformed side, removing positions changes the verdict, undo restores, presets load, a failing
// property outlines its witness, rapid edits end on the newest one, and views export.
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "preset_verdicts.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/matrix_dialog.h"
#include "ui/editors/model_editor.h"
#include "ui/editors/token_table_model.h"
#include "ui/editors/tokens_editor.h"
#include "ui/editors/transform_editor.h"
#include "ui/mask/mask_editor.h"
#include "ui/mask/mask_paint_view.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QMenuBar>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

void activate(QComboBox* combo, int index) {
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

} // namespace

class TestUiExplorer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // settings of the test, not of the user
    }

    void opensOnTheCounterexampleWithExactNumbers() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const SideBySide* s = w.views()->current();
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->largestDifference), QString("5/9"));
        HeatmapView* original = w.views()->view(ViewsPanel::Output, ViewsPanel::Original);
        QCOMPARE(original->cellText(1, 0), QString("[1, 0] = 14/9"));
        HeatmapView* transformed = w.views()->view(ViewsPanel::Output, ViewsPanel::Transformed);
        QCOMPARE(transformed->cellText(1, 1), QString("[1, 1] = 4/7"));
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("fails"));
        QCOMPARE(w.properties()->verdictText("logit-symmetry"), QString("holds"));
    }

    // The panel fits its columns once per update, and after a verdict only those the verdict's
    // texts outgrew: every text must still be shown whole, after short and long ones.
    void propertyColumnsShowWholeTexts() {
        PropertyPanel panel;
        panel.resize(900, 400);
        panel.show();
        panel.start({"permutation-equivariance", "gradient", "row-sums"});
        auto report = [](const char* name, const char* deviation, const char* tolerance) {
            PropertyReport r;
            r.name = name;
            r.verdict = Verdict::Fails;
            r.exact = true;
            r.maxDeviation = parseRational(deviation);
            r.tolerance = parseRational(tolerance);
            return r;
        };
        panel.setReport(0, report("permutation-equivariance", "5/9", "0"));
        // Wider than the headers the columns were fitted to when the checks started.
        panel.setReport(1, report("gradient", "12345678901/13", "1234567/890123"));
        panel.setFailed(2, "row-sums could not run"); // the verdict column says "error"
        QTreeWidget* tree = panel.tree();
        const QFontMetrics metrics(tree->font());
        // A cell draws its text between margins of the style's focus frame margin plus one.
        const int margins = 2 * (tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1);
        for (int row = 0; row < tree->topLevelItemCount(); ++row)
            for (int c = 0; c < tree->columnCount(); ++c) {
                const QString text = tree->topLevelItem(row)->text(c);
                QVERIFY2(tree->columnWidth(c) >= metrics.horizontalAdvance(text) + margins,
                         qPrintable(QString("row %1 column %2: '%3'").arg(row).arg(c).arg(text)));
            }
    }

    // While the checks run, a column only widens (each resize repaints the whole tree); when
    // the run ends, the columns fit their texts again.
    void propertyColumnsOnlyWidenDuringARun() {
        PropertyPanel panel;
        panel.resize(420, 300);
        panel.show();
        const QStringList names = {"permutation-equivariance", "gradient"};
        PropertyReport wide;
        wide.name = "gradient";
        wide.verdict = Verdict::Holds;
        wide.exact = true;
        wide.maxDeviation = parseRational("12345678901/13");
        wide.tolerance = Rational(0);
        panel.start(names, {});
        panel.setReport(1, wide);
        panel.finish(false);
        QTreeWidget* tree = panel.tree();
        const int fitted = tree->columnWidth(2); // the deviation column, fitted to the wide value
        panel.start(names, {}); // the values are emptied: the column keeps its width
        QCOMPARE(tree->columnWidth(2), fitted);
        PropertyReport narrow = wide;
        narrow.maxDeviation = Rational(0);
        panel.setReport(1, narrow);
        QCOMPARE(tree->columnWidth(2), fitted);
        panel.finish(false); // fitted again, to "0" (and the header)
        QVERIFY(tree->columnWidth(2) < fitted);
    }

    void typingACellChangesTheTrace() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const Eigen::MatrixXd before = w.views()->current()->original.output.values;
        typeIntoCell(w.tokensEditor(), 0, 1, "1/2");
        QVERIFY(waitForIdle(w));
        QCOMPARE(rationalText(w.document()->scenario().tokens.values(0, 1)), std::string("1/2"));
        QVERIFY(w.views()->current()->original.output.values != before);
        QVERIFY(w.errorText().isEmpty());
    }

    // An edit fits again only the columns whose values changed: a long value widens its own
    // column until it shows whole, and leaves the others as they were.
    void aLongValueWidensOnlyItsColumn() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTableView* table = w.tokensEditor()->table();
        // Wider than its values need (narrower would stop at the header's minimum, which is what
        // they need): fitting it again would narrow it.
        table->setColumnWidth(0, 200);
        std::vector<int> widths;
        for (int c = 0; c < table->model()->columnCount(); ++c)
            widths.push_back(table->columnWidth(c));
        typeIntoCell(w.tokensEditor(), 0, 1, "-123456789/7");
        QVERIFY(waitForIdle(w));
        QVERIFY(table->columnWidth(1) > widths[1]);
        QVERIFY(table->columnWidth(1) >=
                static_cast<QAbstractItemView*>(table)->sizeHintForColumn(1));
        for (int c = 0; c < table->model()->columnCount(); ++c)
            if (c != 1) QCOMPARE(table->columnWidth(c), widths[std::size_t(c)]);
    }

    void aBadCellIsRefusedAndTheValueKept() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const Scenario before = w.document()->scenario();
        typeIntoCell(w.tokensEditor(), 1, 0, "abc");
        QVERIFY(w.errorText().contains("x1[0]"));
        QVERIFY(w.errorText().contains("abc"));
        QCOMPARE(w.document()->scenario(), before);
        QCOMPARE(w.document()->undoStack()->count(), 0);
        typeIntoCell(w.tokensEditor(), 1, 0, "nan");
        QCOMPARE(w.document()->scenario(), before);
    }

    void aValueThatOverflowsIsAnErrorNotAVerdict() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:causal-model")); // float64
        QVERIFY(waitForIdle(w));
        const Scenario before = w.document()->scenario();
        // Beyond float64: refused where it is typed, the tokens as they were.
        typeIntoCell(w.tokensEditor(), 1, 0, "1e309");
        QVERIFY2(w.errorText().contains("beyond the range of float64"), qPrintable(w.errorText()));
        QCOMPARE(w.document()->scenario(), before);
        // Within it, but the scores overflow: the views and every check say so, none holds.
        typeIntoCell(w.tokensEditor(), 1, 0, "1e300");
        QVERIFY(waitForIdle(w));
        QVERIFY2(w.errorText().contains("layers[0]: its output is not finite"),
                 qPrintable(w.errorText()));
        QTreeWidget* tree = w.properties()->tree();
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            QVERIFY2(!tree->topLevelItem(i)->text(1).contains("holds"),
                     qPrintable(tree->topLevelItem(i)->text(0)));
        // Undo brings back the numbers and the verdicts.
        w.document()->undoStack()->undo();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.document()->scenario(), before);
        QVERIFY(w.errorText().isEmpty());
    }

    void aPermutationUpdatesTheTransformedSide() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QLineEdit* cycles = w.transformEditor()->cyclesField();
        cycles->setText("()");
        QTest::keyClick(cycles, Qt::Key_Return);
        QVERIFY(waitForIdle(w));
        QCOMPARE(QString::fromStdString(w.views()->current()->largestDifference), QString("0"));
        cycles->setText("(0 1)");
        QTest::keyClick(cycles, Qt::Key_Return);
        QVERIFY(waitForIdle(w));
        QCOMPARE(QString::fromStdString(w.views()->current()->largestDifference), QString("5/9"));
        cycles->setText("(0 2)"); // not a permutation of 0..1
        QTest::keyClick(cycles, Qt::Key_Return);
        QVERIFY(w.errorText().contains("permutation"));
        QCOMPARE(w.document()->scenario().permutation.cycles, std::string("(0 1)"));
    }

    void removingThePositionsMakesItEquivariantAndUndoRestores() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const Scenario before = w.document()->scenario();
        auto* positional = w.modelEditor()->findChild<QComboBox*>("positional");
        QVERIFY(positional);
        activate(positional, 0); // none
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("holds"));
        QCOMPARE(QString::fromStdString(w.views()->current()->largestDifference), QString("0"));
        QTest::keySequence(&w, QKeySequence::Undo);
        QCOMPARE(w.document()->scenario(), before);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("fails"));
    }

    void aShiftComparesPositionsOffsetByC() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:rope-shift"));
        QVERIFY(waitForIdle(w));
        activate(w.transformEditor()->findChild<QComboBox*>("transformKind"), 1);
        QVERIFY(waitForIdle(w));
        QVERIFY(QString::fromStdString(w.views()->current()->transformedLabel).contains("+ 1"));
        QCOMPARE(w.document()->transform().kind, Transform::Kind::Shift);
    }

    void clickingAFailureOutlinesItsWitness() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.properties()->select("permutation-equivariance");
        HeatmapView* diff = w.views()->view(ViewsPanel::Output, ViewsPanel::Difference);
        QCOMPARE(diff->highlightCount(), 1);
        w.properties()->select("logit-symmetry"); // holds: no witness
        QCOMPARE(diff->highlightCount(), 0);
    }

    void aFailingCausalityShowsItsMeasuredMap() {
        // Above 128 tokens only the scenario's own checks run, so locality is not there to
        // measure dependencies; causality measures the map itself when it fails, and its
        // witness pair is outlined on it.
        Scenario s = loadScenario("builtin:sliding-window");
        s.tokens = TokenSpec::random(150, s.d(), 2);
        s.precision = Precision::Float64;
        s.checks = {{"causality", nlohmann::json::object()}};
        MainWindow w;
        w.show();
        w.document()->reset(s, QString());
        QVERIFY(waitForIdle(w));
        const HeatmapView* dependency = w.views()->allViews().at(9);
        QCOMPARE(dependency->title(), QString("measured dependency"));
        QCOMPARE(dependency->matrix().values.rows(), 150);
        QCOMPARE(dependency->matrix().values(0, 1), 1.0); // window(1) twice: token 1 reaches 0
        QCOMPARE(dependency->matrix().values(0, 3), 0.0);
        QCOMPARE(dependency->highlightCount(), 1);
        const HeatmapView* bound = w.views()->allViews().at(10); // and the masks' reachability
        QCOMPARE(bound->matrix().values.rows(), 150);
        QCOMPARE(bound->matrix().values(0, 2), 1.0);
        QCOMPARE(bound->matrix().values(0, 3), 0.0);
        // Their difference: the masks allow what was measured, and every measured cell is allowed.
        const HeatmapView* excess = w.views()->excessView();
        QCOMPARE(excess->matrix().values.rows(), 150);
        QCOMPARE(excess->matrix().values.maxCoeff(), 0.0);
        QCOMPARE(excess->matrix().values(0, 1), 0.0);
        QCOMPARE(excess->highlightCount(), 1);
        // Made causal, causality holds and measures no map: the old one must not stay.
        Scenario causal = w.document()->scenario();
        for (LayerSpec& layer : causal.model.layers)
            layer.mask = MaskSpec::causal();
        QVERIFY(w.document()->editScenario(causal, "causal"));
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->report("causality")->verdict, Verdict::Holds);
        QCOMPARE(dependency->matrix().values.size(), Eigen::Index(0));
    }

    void presetsMenuOpensEveryBuiltin() {
        MainWindow w;
        QMenu* presets = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->text() == "&Presets") presets = a->menu();
        QVERIFY(presets);
        QCOMPARE(std::size_t(presets->actions().size()), builtinPresets().size());
        for (QAction* a : presets->actions()) {
            a->trigger();
            const QString name = a->text().section(" — ", 0, 0);
            QCOMPARE(w.document()->scenario(), loadScenario("builtin:" + name.toStdString()));
        }
    }

    void everyPresetShowsItsVerdictsInThePanel_data() { addPresetVerdictRows(); }
    void everyPresetShowsItsVerdictsInThePanel() {
        QFETCH(QString, preset);
        QFETCH(QString, expected);
        MainWindow w;
        QVERIFY(w.openSource("builtin:" + preset));
        QVERIFY(waitForIdle(w));
        for (const QString& pair : expected.split(',')) {
            const QStringList kv = pair.split('=');
            QVERIFY2(w.properties()->verdictText(kv[0]) == kv[1],
                     qPrintable(kv[0] + " shows " + w.properties()->verdictText(kv[0])));
        }
    }

    void paintingAMaskCellChangesTheWeights() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.views()->current()->head(Side::Original, 0, 0).weights.values(0, 1) > 0, true);
        w.findChild<QTabWidget*>()->setCurrentIndex(2); // "Mask"
        auto* paint = w.modelEditor()->maskEditor()->findChild<MaskPaintView*>();
        QVERIFY(paint);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::mouseClick(paint, Qt::LeftButton, {}, paint->cellRect(0, 1).center().toPoint());
        QCOMPARE(w.document()->scenario().model.layers[0].mask.kind, MaskSpec::Kind::Custom);
        QVERIFY(!w.document()->scenario().model.layers[0].mask.cells(0, 1));
        QVERIFY(waitForIdle(w));
        const ViewMatrix a = w.views()->current()->head(Side::Original, 0, 0).weights;
        QCOMPARE(a.values(0, 1), 0.0);
        QCOMPARE(a.exactText[1], std::string("0"));
        QCOMPARE(a.values(0, 0), 1.0); // row 0 now attends to token 0 only
        QTest::keySequence(&w, QKeySequence::Undo);
        QCOMPARE(w.document()->scenario().model.layers[0].mask.kind, MaskSpec::Kind::All);
    }

    void theChosenBackendComputesTheViews() {
        MainWindow w;
        QVERIFY(w.openSource("builtin:flash-tiling-float32"));
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.views()->current()->backend["backend"].get<std::string>(), std::string("cpu"));
        auto* backend = w.modelEditor()->findChild<QComboBox*>("backend");
        QVERIFY(backend);
        const int opencl = backend->findData(int(BackendChoice::OpenCl));
        if (!qobject_cast<QStandardItemModel*>(backend->model())->item(opencl)->isEnabled())
            QSKIP("this build has no OpenCL backend");
        const SideBySide onCpu = *w.views()->current();
        activate(backend, opencl);
        QCOMPARE(w.document()->scenario().backend, BackendChoice::OpenCl);
        QVERIFY(waitForIdle(w));
        const SideBySide& s = *w.views()->current();
        QVERIFY2(s.backend["backend"].get<std::string>().find("opencl") != std::string::npos,
                 qPrintable(QString::fromStdString(s.backend.dump())));
        const double gap =
            (s.original.output.values - onCpu.original.output.values).cwiseAbs().maxCoeff();
        QVERIFY2(gap < 1e-4, qPrintable(QString::number(gap)));
    }

    void aWeightEditedCellByCellBecomesGivenValues() {
        MainWindow w;
        QVERIFY(w.openSource("builtin:equivariant-block"));
        const int d = w.document()->scenario().d();
        MatrixDialog* dialog = w.modelEditor()->editWeight(0);
        QVERIFY(dialog);
        QCOMPARE(dialog->values().rows(), Eigen::Index(d));
        QVERIFY(!dialog->model()->setData(dialog->model()->index(0, 0), "1/0", Qt::EditRole));
        QVERIFY(dialog->model()->setData(dialog->model()->index(0, 0), "-2/3", Qt::EditRole));
        dialog->accept();
        const MatrixSpec& wq = w.document()->scenario().model.layers[0].wq;
        QCOMPARE(wq.kind, MatrixSpec::Kind::Values);
        QCOMPARE(rationalText(wq.values(0, 0)), std::string("-2/3"));
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->scenario().model.layers[0].wq.kind != MatrixSpec::Kind::Values);
    }

    void pasteAndImportFillTheTokens() {
        MainWindow w;
        TokensEditor* tokens = w.tokensEditor();
        tokens->table()->setCurrentIndex(tokens->model()->index(1, 0));
        tokens->pasteText("1\t2\t3\n4\t5\t1/2\n"); // a spreadsheet block, grows to 3 rows
        const Scenario& s = w.document()->scenario();
        QCOMPARE(s.n(), 3);
        QCOMPARE(rationalText(s.tokens.values(2, 2)), std::string("1/2"));
        QTemporaryDir dir;
        QFile csv(dir.filePath("x.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("a,b,c\n0.5,1,2\n3,4,oops\n");
        csv.close();
        const Scenario before = w.document()->scenario();
        tokens->importFile(csv.fileName());
        QVERIFY(w.errorText().contains("line 3, column 3"));
        QCOMPARE(w.document()->scenario(), before);
        QVERIFY(csv.open(QIODevice::WriteOnly | QIODevice::Truncate));
        csv.write("a,b,c\n0.5,1,2\n3,4,5\n");
        csv.close();
        tokens->importFile(csv.fileName());
        QCOMPARE(w.document()->scenario().n(), 2);
        QCOMPARE(rationalText(w.document()->scenario().tokens.values(0, 0)), std::string("1/2"));
    }

    void rapidEditsEndOnTheNewestOne() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QVERIFY(w.openSource("builtin:equivariant-block"));
        for (int seed = 1; seed <= 25; ++seed) {
            Scenario next = w.document()->scenario();
            next.tokens = TokenSpec::random(4, next.d(), std::uint64_t(seed));
            QVERIFY(w.document()->editScenario(next, "seed"));
        }
        QVERIFY(waitForIdle(w));
        // The newest tokens' f(X), whichever comparison the views draw beside it (the first
        // failing property's, once the checks have answered).
        const SideBySide fresh = compareSides(w.document()->scenario(), w.document()->transform());
        const Eigen::MatrixXd& shown = w.views()->current()->original.output.values;
        QCOMPARE(shown.rows(), fresh.original.output.values.rows());
        QVERIFY(shown == fresh.original.output.values);
    }

    void exportsViewsAndVerdicts() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        for (const QString format : {"png", "svg"}) {
            w.exportViews(dir.path(), format);
            const QFileInfoList files = QDir(dir.path()).entryInfoList({"*." + format});
            QCOMPARE(files.size(), 12); // 3 x 3 side by side, dependency, bound, their difference
            for (const QFileInfo& f : files)
                QVERIFY2(f.size() > 500, qPrintable(f.fileName()));
        }
        w.exportVerdicts(dir.filePath("v.json"));
        QFile json(dir.filePath("v.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const auto j = nlohmann::json::parse(json.readAll().toStdString());
        QCOMPARE(j["precision"].get<std::string>(), std::string("exact"));
        QCOMPARE(j["properties"][0]["name"].get<std::string>(),
                 std::string("permutation-equivariance"));
        w.exportVerdicts(dir.filePath("v.md"));
        QVERIFY(QFileInfo(dir.filePath("v.md")).size() > 100);
    }

    void saveAndOpenRoundTripThroughTheWindow() {
        QTemporaryDir dir;
        MainWindow w;
        QVERIFY(w.openSource("builtin:sliding-window"));
        const Scenario s = w.document()->scenario();
        QVERIFY(w.saveTo(dir.filePath("a.json")));
        QVERIFY(w.openSource("builtin:causal-model"));
        QVERIFY(w.openSource(dir.filePath("a.json")));
        QCOMPARE(w.document()->scenario(), s);
        QVERIFY(w.windowTitle().contains("a.json"));
    }
};

QTEST_MAIN(TestUiExplorer)
#include "test_ui_explorer.moc"
