// SPDX-License-Identifier: GPL-3.0-or-later
// The window never shows what is not true: each map outlines the cell that holds the value the
// witness names for it (row σ(r) of f(X) beside row r of f(P X)); results of a previous input are
// marked as such until the new ones arrive; a new scenario brings its own property selection and
// parameters; the details never contradict the verdict list and read as words, the JSON one
// click away; a transformation alone is not an unsaved change.
#include "core/io/presets.h"
#include "ui/document/comparison_choice.h"
#include "ui/document/scenario_document.h"
#include "ui/panels/check_parameters_form.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QGuiApplication>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeWidget>

#include <qcustomplot.h>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// A witness's value as a number: an exact fraction ("14/9"), a decimal text or a number.
double valueOf(const nlohmann::json& value) {
    if (value.is_number()) return value.get<double>();
    const QString text = QString::fromStdString(value.get<std::string>());
    const QStringList parts = text.split('/');
    return parts.size() == 2 ? parts[0].toDouble() / parts[1].toDouble() : text.toDouble();
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

/// The properties the list's rows stand for, top to bottom.
QStringList rowNames(MainWindow& w) {
    QStringList names;
    QTreeWidget* tree = w.properties()->tree();
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        names << PropertyPanel::propertyOf(tree->topLevelItem(i));
    return names;
}

/// The property of the list's selected row ("" when none is).
QString selectedProperty(MainWindow& w) {
    return PropertyPanel::propertyOf(w.properties()->tree()->currentItem());
}

/// The first row, top to bottom, whose property fails ("" when none does).
QString firstFailure(MainWindow& w) {
    for (const QString& name : rowNames(w))
        if (w.properties()->verdictText(name) == "fails") return name;
    return {};
}

/// Clicks the property list's row `name`, as a user does, and waits for the views it draws.
void follow(MainWindow& w, const QString& name) {
    QTreeWidget* tree = w.properties()->tree();
    const int index = int(rowNames(w).indexOf(name));
    QVERIFY2(index >= 0, qPrintable(name));
    QTreeWidgetItem* item = tree->topLevelItem(index);
    tree->scrollToItem(item);
    const QRect row = tree->visualItemRect(item);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                      QPoint(row.left() + 8, row.center().y()));
    QVERIFY(waitForIdle(w)); // the views of its comparison too
    QCOMPARE(selectedProperty(w), name);
}

/// The details under the verdict list, as text.
QString details(MainWindow& w) {
    return w.properties()->findChild<QTextBrowser*>()->toPlainText();
}

/// Whatever was drawn or said of the previous input is marked as such at once, before any result
/// of the new one can have arrived: every map veiled, every verdict "computing…" without a
/// report, the selected row's details too.
void expectEverythingStale(MainWindow& w) {
    QVERIFY(w.views()->viewsStale());
    for (int r = 0; r < ViewsPanel::RowCount; ++r)
        for (int c = 0; c < ViewsPanel::ColumnCount; ++c)
            QVERIFY2(w.views()->view(ViewsPanel::Row(r), ViewsPanel::Column(c))->isStale(),
                     qPrintable(QString("view %1, %2").arg(r).arg(c)));
    const QStringList names = rowNames(w);
    QVERIFY(!names.isEmpty());
    for (const QString& name : names) {
        QCOMPARE(w.properties()->verdictText(name), QString("computing…"));
        QVERIFY2(!w.properties()->report(name), qPrintable(name));
    }
    if (!selectedProperty(w).isEmpty()) QCOMPARE(details(w), QString("computing…"));
}

/// Once the new input's results have arrived, nothing is marked stale and every row has its
/// verdict.
void expectEverythingCurrent(MainWindow& w) {
    QVERIFY(!w.views()->viewsStale());
    for (HeatmapView* v : w.views()->allViews())
        QVERIFY(!v->isStale());
    int reported = 0;
    for (const QString& name : rowNames(w)) {
        QVERIFY2(w.properties()->verdictText(name) != "computing…", qPrintable(name));
        reported += w.properties()->report(name) != nullptr;
    }
    QVERIFY(reported > 0);
}

/// `s` on `n` generated tokens.
Scenario withRandomTokens(Scenario s, int n, std::uint64_t seed) {
    s.tokens = TokenSpec::random(n, s.d(), seed);
    s.permutation = s.permutation.resizedTo(n);
    return s;
}

} // namespace

class TestUiTruth : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// Every preset whose equivariance fails with a witness on the outputs: the outlined cell of
    /// f(X) holds model_then_transformed, that of f(P X) transformed_then_model.
    void witnessOutlinesHoldTheValuesItNames() {
        int checked = 0;
        for (const PresetInfo& preset : builtinPresets()) {
            MainWindow w;
            w.show();
            QVERIFY(w.openSource(QString::fromStdString("builtin:" + preset.name)));
            QVERIFY(waitForIdle(w));
            const PropertyReport* report = w.properties()->report("permutation-equivariance");
            if (!report || !report->witness || !report->witness->cell() ||
                report->witness->cell()->map != WitnessCell::Map::Output)
                continue;
            follow(w, "permutation-equivariance");
            report = w.properties()->report("permutation-equivariance");
            const Witness& witness = *report->witness;
            const HeatmapView* original = w.views()->view(ViewsPanel::Output, ViewsPanel::Original);
            const HeatmapView* transformed =
                w.views()->view(ViewsPanel::Output, ViewsPanel::Transformed);
            const QString where = QString::fromStdString(preset.name);
            QVERIFY2(original->highlights().size() == 1, qPrintable(where));
            QVERIFY2(transformed->highlights().size() == 1, qPrintable(where));
            const QPoint o = original->highlights().front(), t = transformed->highlights().front();
            QVERIFY2(near(original->matrix().values(o.x(), o.y()),
                          valueOf(witness.value("model_then_transformed"))),
                     qPrintable(where));
            QVERIFY2(near(transformed->matrix().values(t.x(), t.y()),
                          valueOf(witness.value("transformed_then_model"))),
                     qPrintable(where));
            ++checked;
        }
        QVERIFY(checked >= 3); // the default scenario, rope-shift, causal-model at least
    }

    void anEdgeCellsOutlineShowsAllFourSides() {
        // The default scenario outlines row 1, column 0 of f(X): its left and bottom sides lie
        // on the map's frame, and are drawn over it rather than cut in half by it.
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(waitForIdle(w));
        HeatmapView* map = w.views()->view(ViewsPanel::Output, ViewsPanel::Original);
        QCOMPARE(map->highlights(), QList<QPoint>{QPoint(1, 0)});
        QCustomPlot* plot = map->plot();
        plot->replot();
        const QImage image = plot->toPixmap().toImage();
        const QRect frame = plot->axisRect()->rect();
        const auto outlineAt = [&](int x, int y) {
            const QColor c = image.pixelColor(x, y);
            return c.red() > 180 && c.green() < 80 && c.blue() < 120; // the outline's red
        };
        // Beside the cell's left side, just outside the frame; on the frame's bottom line, under
        // the cell (between the ticks): the outline's red, not cut off, not the frame's black.
        const int besideY = frame.top() + frame.height() * 5 / 8;
        const int underX = frame.left() + frame.width() / 12;
        QVERIFY(outlineAt(frame.left() - 1, besideY));
        QVERIFY(outlineAt(underX, frame.bottom()));
    }

    void anEditMarksThePreviousResultsUntilTheNewOnesArrive() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        expectEverythingCurrent(w);
        QVERIFY(!selectedProperty(w).isEmpty()); // its first failure, whose details are shown
        // Asserted before any event is processed: no result of the new input can be there yet.
        const Scenario& s = w.document()->scenario();
        QVERIFY(w.document()->editScenario(withRandomTokens(s, s.n(), 7), "tokens"));
        expectEverythingStale(w);
        QVERIFY(waitForIdle(w));
        expectEverythingCurrent(w);

        // File > Open of another preset: the same at once, and nothing of the old one selected.
        QVERIFY(w.openSource("builtin:rope-shift"));
        expectEverythingStale(w);
        QVERIFY(selectedProperty(w).isEmpty());
        if (const QString dir = qEnvironmentVariable("ATTNLAB_SHOTS"); !dir.isEmpty())
            w.grab().save(dir + "/stale.png"); // to look at: the previous input's maps, veiled
        QVERIFY(waitForIdle(w));
        expectEverythingCurrent(w);
    }

    void aNewScenarioStartsWithItsOwnSelectionAndDefaults() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:sinusoidal-positions"));
        QVERIFY(waitForIdle(w));
        // A claimed radius for locality, set in its parameters form.
        follow(w, "locality");
        auto* radius = qobject_cast<QSpinBox*>(w.properties()->parametersForm()->field("radius"));
        QVERIFY(radius);
        radius->setValue(3);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.compute()->chosenParameters("locality"), nlohmann::json({{"radius", 3}}));
        // Shift invariance followed, its smallest witness shown.
        follow(w, "shift-invariance");
        QCOMPARE(w.comparison()->property(), QString("shift-invariance"));
        w.properties()->shrinkBox()->setChecked(true);
        QVERIFY(waitForIdle(w));

        // rope-shift is shift invariant: it has its own first failure to show.
        QVERIFY(w.openSource("builtin:rope-shift"));
        QVERIFY(w.compute()->chosenParameters("locality").empty());
        QVERIFY(w.comparison()->property().isEmpty());
        QVERIFY(selectedProperty(w).isEmpty());
        QVERIFY(!w.properties()->shrinkBox()->isChecked());
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText("shift-invariance"), QString("holds"));
        QVERIFY(w.compute()->chosenParameters("locality").empty());
        QVERIFY(!w.properties()->shrinkBox()->isChecked());
        // Its own first failure is selected and followed, not the property followed before.
        const QString followed = w.comparison()->property();
        QCOMPARE(followed, selectedProperty(w));
        QCOMPARE(followed, firstFailure(w));
        QVERIFY(!followed.isEmpty());
        QVERIFY2(w.views()->current()->transformText.starts_with(followed.toStdString()),
                 w.views()->current()->transformText.c_str());
        // Locality runs with its default radius again: the form shows "auto".
        follow(w, "locality");
        radius = qobject_cast<QSpinBox*>(w.properties()->parametersForm()->field("radius"));
        QVERIFY(radius);
        QCOMPARE(radius->value(), radius->minimum());

        // Equivariance followed in one scenario; window-stray-cell then shows its own first
        // failure in the list, the details and the views alike.
        follow(w, "permutation-equivariance");
        QCOMPARE(w.comparison()->property(), QString("permutation-equivariance"));
        QVERIFY(w.openSource("builtin:window-stray-cell"));
        QVERIFY(waitForIdle(w));
        const QString selected = selectedProperty(w);
        QVERIFY(!selected.isEmpty());
        QCOMPARE(selected, firstFailure(w));
        QCOMPARE(w.comparison()->property(), selected);
        const PropertyReport* report = w.properties()->report(selected);
        QVERIFY(report);
        QCOMPARE(report->verdict, Verdict::Fails);
        const QString shown = w.properties()->tree()->currentItem()->text(0);
        QVERIFY2(details(w).startsWith(shown + " — ✗ fails"), qPrintable(details(w)));
        QVERIFY2(w.views()->current()->transformText.starts_with(selected.toStdString()),
                 w.views()->current()->transformText.c_str());
        // Equivariance fails there too, below the first failure: kept selected, it would agree
        // with the views and the details but not be the new scenario's first look.
        QCOMPARE(w.properties()->verdictText("permutation-equivariance"), QString("fails"));
        QVERIFY(selected != "permutation-equivariance");
    }

    void detailsNeverContradictTheList() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        // Checks that wait 2 s before they start: the last row is still computing when it is
        // selected, and is cancelled before it gives a verdict.
        w.compute()->setCheckDelay(2000);
        w.compute()->runAllChecks();
        QTRY_VERIFY(w.properties()->progressBar()->isVisible());
        const QString last = rowNames(w).back();
        w.properties()->select(last);
        QCOMPARE(w.properties()->verdictText(last), QString("computing…"));
        QCOMPARE(details(w), QString("computing…"));
        w.properties()->cancelButton()->click();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.properties()->verdictText(last), QString("cancelled"));
        QVERIFY2(details(w).contains("cancelled"), qPrintable(details(w)));
        QVERIFY2(!details(w).contains("holds") && !details(w).contains("computing"),
                 qPrintable(details(w)));

        // On 200 tokens only the scenario's own checks run on an edit; the others say "not run",
        // and so do their details, with what to press.
        w.compute()->setCheckDelay(0);
        Scenario large = withRandomTokens(w.document()->scenario(), 200, 1);
        large.precision = Precision::Float64;
        QVERIFY(w.document()->editScenario(large, "tokens"));
        QVERIFY(waitForIdle(w));
        QString notRun;
        for (const QString& name : rowNames(w))
            if (w.properties()->verdictText(name) == "not run") notRun = name;
        QVERIFY(!notRun.isEmpty());
        follow(w, notRun);
        QVERIFY2(details(w).contains("not run") && details(w).contains("Run all"),
                 qPrintable(details(w)));
        QVERIFY2(!details(w).contains("computing"), qPrintable(details(w)));
    }

    void aTransformationAloneIsNotAnUnsavedChange() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:rope-shift"));
        QVERIFY(waitForIdle(w));
        QVERIFY(!w.document()->isModified());
        ExplorerState shifted = w.document()->state();
        shifted.transform.kind = Transform::Kind::Shift;
        shifted.transform.shift = 1;
        QVERIFY(w.document()->edit(shifted, "shift"));
        QVERIFY(!w.document()->isModified());
        QVERIFY2(!w.windowTitle().contains(" *"), qPrintable(w.windowTitle()));
        // A token is part of the file.
        const Scenario& s = w.document()->scenario();
        QVERIFY(w.document()->editScenario(withRandomTokens(s, s.n(), 5), "tokens"));
        QVERIFY(w.document()->isModified());
        QVERIFY2(w.windowTitle().contains(" *"), qPrintable(w.windowTitle()));
        w.document()->undoStack()->undo(); // the tokens, not the shift
        QCOMPARE(w.document()->transform().kind, Transform::Kind::Shift);
        QVERIFY(!w.document()->isModified());
        QVERIFY2(!w.windowTitle().contains(" *"), qPrintable(w.windowTitle()));
        // Saved: what is on disk again.
        QVERIFY(w.document()->editScenario(withRandomTokens(s, s.n(), 6), "tokens"));
        QVERIFY(w.document()->isModified());
        QTemporaryDir dir;
        QVERIFY(w.saveTo(dir.path() + "/s.json"));
        QVERIFY(!w.document()->isModified());
        QVERIFY2(!w.windowTitle().contains(" *"), qPrintable(w.windowTitle()));
        QVERIFY(waitForIdle(w));
    }

    void veiledMapsAreNotExported() {
        // While the maps on screen are the previous input's, exporting them is refused (a
        // figure would present them as the new input's); once they are current it writes.
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        const Scenario& s = w.document()->scenario();
        QVERIFY(w.document()->editScenario(withRandomTokens(s, s.n(), 3), "tokens"));
        QVERIFY(!w.exportFigure(dir.filePath("f.svg")));
        QVERIFY2(w.errorText().contains("previous input"), qPrintable(w.errorText()));
        w.exportViews(dir.path(), "png");
        QVERIFY(QDir(dir.path()).entryList({"*.png"}).isEmpty());
        QVERIFY(waitForIdle(w));
        QVERIFY(w.exportFigure(dir.filePath("f.svg")));
        w.exportViews(dir.path(), "png");
        QVERIFY(!QDir(dir.path()).entryList({"*.png"}).isEmpty());
    }

    void aLocalityRerunVeilsTheDependencyPage() {
        // A new claimed radius reruns locality, whose map and band the Dependencies page draws:
        // the page is veiled until its new report arrives, then shows the new band.
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:window-stray-cell"));
        QVERIFY(waitForIdle(w));
        follow(w, "locality");
        QVERIFY(!w.views()->dependencyStale());
        auto* radius = qobject_cast<QSpinBox*>(w.properties()->parametersForm()->field("radius"));
        QVERIFY(radius);
        radius->setValue(7);
        QVERIFY(w.views()->dependencyStale());
        QVERIFY(w.views()->dependencyView()->isStale());
        QVERIFY(waitForIdle(w));
        QVERIFY(!w.views()->dependencyStale());
        QCOMPARE(w.properties()->verdictText("locality"), QString("holds")); // 7 is the measure
    }

    void readableDetails() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        follow(w, "permutation-equivariance");
        QTextBrowser* browser = w.properties()->findChild<QTextBrowser*>();
        const QString words = browser->toPlainText();
        QVERIFY2(words.contains("σ = (0 1): row 0 of f(P X) is 1"), qPrintable(words));
        QVERIFY2(words.contains("row 1 of f(X)"), qPrintable(words));
        QVERIFY2(words.contains("14/9"), qPrintable(words));
        QVERIFY2(!words.contains("{\""), qPrintable(words)); // no raw JSON
        QVERIFY2(!words.contains("\"witness\""), qPrintable(words));
        emit browser->anchorClicked(QUrl("attnlab:show-json"));
        QVERIFY2(browser->toPlainText().contains("\"witness\""),
                 qPrintable(browser->toPlainText()));
        QVERIFY(browser->toPlainText().contains("σ = (0 1)")); // the words stay above it
        emit browser->anchorClicked(QUrl("attnlab:show-json"));
        QVERIFY(!browser->toPlainText().contains("\"witness\""));
        QGuiApplication::clipboard()->clear();
        emit browser->anchorClicked(QUrl("attnlab:copy-json"));
        const nlohmann::json copied = nlohmann::json::parse(
            QGuiApplication::clipboard()->text().toStdString(), nullptr, false);
        QVERIFY2(copied.is_object(), qPrintable(QGuiApplication::clipboard()->text()));
        QCOMPARE(copied.value("name", std::string()), std::string("permutation-equivariance"));
        QVERIFY(copied.contains("witness"));
    }
};

QTEST_MAIN(TestUiTruth)
#include "test_ui_truth.moc"
