// SPDX-License-Identifier: GPL-3.0-or-later
// The window never shows what is not true: each map outlines the cell that holds the value the
// witness names for it (row σ(r) of f(X) beside row r of f(P X)); results of a previous input are
// marked as such until the new ones arrive; a new scenario brings its own property selection and
// parameters; the details never contradict the verdict list.
#include "core/io/presets.h"
#include "ui/document/comparison_choice.h"
#include "ui/document/scenario_document.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QStandardPaths>
#include <QTreeWidget>

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

/// Clicks the property list's row `name`, as a user does, and waits for the views it draws.
void follow(MainWindow& w, const QString& name) {
    QTreeWidget* tree = w.properties()->tree();
    const auto items = tree->findItems(name, Qt::MatchExactly, 0);
    QVERIFY(!items.isEmpty());
    tree->scrollToItem(items.front());
    const QRect row = tree->visualItemRect(items.front());
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                      QPoint(row.left() + 8, row.center().y()));
    QVERIFY(waitForIdle(w)); // the views of its comparison too
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
};

QTEST_MAIN(TestUiTruth)
#include "test_ui_truth.moc"
