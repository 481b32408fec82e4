// SPDX-License-Identifier: GPL-3.0-or-later
// The transform editor's "decode with a KV cache" driven through its widgets: the decode
// column's maps are m x n with the m x n mask greyed, the bottom-right difference on a causal
// preset is zero and the top-left one is not, and a mask file of the wrong shape is refused
// with the banner's message, the previous state kept; removing tokens takes m down with n.
#include "core/formats/npy.h"
#include "core/spec/mask_conventions.h"
#include "ui/editors/tokens_editor.h"
#include "ui/editors/transform_editor.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QApplication>
#include <QComboBox>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUndoStack>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

void activate(QComboBox* combo, int index) {
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

double largestDifference(MainWindow& w) {
    return std::stod(w.views()->current()->largestDifference);
}

} // namespace

class TestUiDecode : public QObject {
    Q_OBJECT
private slots:
    void decodeThroughTheEditor() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:causal-model")); // n = 6, causal, float64
        QVERIFY(waitForIdle(w));
        TransformEditor* editor = w.transformEditor();
        auto* kind = editor->findChild<QComboBox*>("transformKind");
        activate(kind, kind->findText("decode with a KV cache"));
        auto* queries = editor->findChild<QSpinBox*>("decodeQueries");
        QCOMPARE(queries->maximum(), 6);
        queries->setValue(4);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.document()->transform().kind, Transform::Kind::Decode);
        HeatmapView* weights = w.views()->view(ViewsPanel::Weights, ViewsPanel::Transformed);
        QCOMPARE(weights->matrix().values.rows(), Eigen::Index(4));
        QCOMPARE(weights->matrix().values.cols(), Eigen::Index(6));
        QVERIFY(weights->showsMaskOverlay());
        QCOMPARE(
            w.views()->view(ViewsPanel::Output, ViewsPanel::Difference)->matrix().values.rows(),
            Eigen::Index(4));
        QVERIFY(largestDifference(w) < 1e-12);

        auto* alignment = editor->findChild<QComboBox*>("decodeAlignment");
        activate(alignment, alignment->findData(int(CausalAlignment::TopLeft)));
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.document()->transform().alignment, CausalAlignment::TopLeft);
        QVERIFY(largestDifference(w) > 1e-3);

        // A 6 x 6 mask for 4 queries: refused with the reason, nothing changed.
        QTemporaryDir dir;
        const QString path = dir.filePath("square.npy");
        writeNpyMask(path.toStdString(), rectangularCausal(6, 6, CausalAlignment::TopLeft));
        const Transform before = w.document()->transform();
        QSignalSpy refused(w.document(), &ScenarioDocument::refused);
        editor->setDecodeMaskFile(path);
        QCOMPARE(refused.count(), 1);
        QVERIFY2(refused.first().first().toString().contains("decode step needs 4 x 6"),
                 qPrintable(refused.first().first().toString()));
        QCOMPARE(w.document()->transform(), before);
        QCOMPARE(queries->value(), 4);
    }

    void removingTokensTakesTheQueriesDown() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:causal-model")); // n = 6
        QVERIFY(waitForIdle(w));
        TransformEditor* editor = w.transformEditor();
        auto* kind = editor->findChild<QComboBox*>("transformKind");
        activate(kind, kind->findText("decode with a KV cache"));
        auto* queries = editor->findChild<QSpinBox*>("decodeQueries");
        queries->setValue(6);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.document()->transform().queries, 6);
        // "− row" leaves 5 tokens: m follows n instead of the edit being refused.
        QSignalSpy refused(w.document(), &ScenarioDocument::refused);
        QToolButton* removeRow = nullptr;
        for (QToolButton* b : w.tokensEditor()->findChildren<QToolButton*>())
            if (b->text() == "− row") removeRow = b;
        QVERIFY(removeRow);
        removeRow->click();
        QVERIFY(waitForIdle(w));
        QCOMPARE(refused.count(), 0);
        QCOMPARE(w.document()->scenario().n(), 5);
        QCOMPARE(w.document()->transform().queries, 5);
        QCOMPARE(queries->maximum(), 5);
        QCOMPARE(queries->value(), 5);
        HeatmapView* weights = w.views()->view(ViewsPanel::Weights, ViewsPanel::Transformed);
        QCOMPARE(weights->matrix().values.rows(), Eigen::Index(5));
        // One undo step brings back both the token and m.
        w.document()->undoStack()->undo();
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.document()->scenario().n(), 6);
        QCOMPARE(w.document()->transform().queries, 6);
        QCOMPARE(queries->value(), 6);
    }
};

QTEST_MAIN(TestUiDecode)
#include "test_ui_decode.moc"
