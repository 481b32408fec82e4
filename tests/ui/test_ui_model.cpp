// SPDX-License-Identifier: GPL-3.0-or-later
// Bring your own model, through the window's widgets: opening the tiny GPT-2 checkpoint (with a
// tokenizer copied in, and without one) by the path File → Open model takes, the text box and
// the ids line replacing the tokens undoably, token strings in the table and on the axes,
// selectors sized to the model, a thumbnail of the layer x head overview selecting its head, and
// bad checkpoints refused with their problem named while the scenario stays as it was.
#include "core/io/hf_import.h"
#include "ui/document/model_import.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/token_ids_model.h"
#include "ui/editors/tokens_editor.h"
#include "ui/panels/views_panel.h"
#include "ui/views/head_overview_view.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>

#include <qcustomplot.h>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

const QString kFixtures = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures");

/// A copy of the gpt2 fixture checkpoint in `dir`, with its tokenizer when `tokenizer`.
void copyCheckpoint(const QTemporaryDir& dir, bool tokenizer) {
    for (const char* file : {"config.json", "model.safetensors"})
        QVERIFY(QFile::copy(kFixtures + "/hf/gpt2/" + file, dir.filePath(file)));
    if (tokenizer)
        QVERIFY(QFile::copy(kFixtures + "/tokenizers/gpt2/tokenizer.json",
                            dir.filePath("tokenizer.json")));
}

/// Opens `directory` as the menu does and waits for the import and the worker; returns whether
/// it was imported (else the error line says why).
bool openModel(MainWindow& w, const QString& directory,
               const std::optional<QString>& text = std::nullopt) {
    int imported = 0, failed = 0;
    const auto a = QObject::connect(w.modelImport(), &ModelImport::imported, [&] { ++imported; });
    const auto b = QObject::connect(w.modelImport(), &ModelImport::failed, [&] { ++failed; });
    w.openModel(directory, text);
    const bool answered = QTest::qWaitFor([&] { return imported + failed > 0; }, 60000);
    QObject::disconnect(a);
    QObject::disconnect(b);
    return answered && imported > 0 && waitForIdle(w);
}

QStringList qStrings(const std::vector<std::string>& strings) {
    QStringList out;
    for (const std::string& s : strings)
        out << QString::fromStdString(s);
    return out;
}

/// Whether `ticks` are every k-th of `labels` from the first (all of them when they fit).
bool everyKth(const QStringList& ticks, const QStringList& labels) {
    if (ticks.isEmpty()) return false;
    const int k = int((labels.size() + ticks.size() - 1) / ticks.size());
    for (int i = 0; i < ticks.size(); ++i)
        if (i * k >= labels.size() || ticks[i] != labels[i * k]) return false;
    return true;
}

} // namespace

class TestUiModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void opensACheckpointWithItsTokenizer() {
        QTemporaryDir dir;
        copyCheckpoint(dir, true);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openModel(w, dir.path()));
        const Scenario& s = w.document()->scenario();
        QVERIFY(s.model.checkpoint);
        QCOMPARE(s.tokens.kind, TokenSpec::Kind::Ids);
        const TokenSpec expected = checkpointText(*s.model.checkpoint, ModelImport::kDefaultText);
        QCOMPARE(s.tokens.ids, expected.ids);
        QCOMPARE(s.tokens.labels, expected.labels);
        QVERIFY(w.errorText().isEmpty());

        // The text box shows the sentence, the table ids and token strings.
        TokensEditor* tokens = w.tokensEditor();
        QVERIFY(tokens->textBox()->isVisibleTo(tokens));
        QCOMPARE(tokens->textBox()->text(), QString(ModelImport::kDefaultText));
        QCOMPARE(tokens->table()->model(), tokens->idsModel());
        QCOMPARE(tokens->idsModel()->rowCount(), s.n());
        for (int i = 0; i < s.n(); ++i) {
            QCOMPARE(tokens->idsModel()->index(i, TokenIdsModel::Id).data().toLongLong(),
                     s.tokens.ids[std::size_t(i)]);
            QCOMPARE(tokens->idsModel()->index(i, TokenIdsModel::Label).data().toString(),
                     QString::fromStdString(s.tokens.labels[std::size_t(i)]));
        }

        // Selectors sized to the model: 2 layers of 4 heads.
        ViewsPanel* views = w.views();
        QCOMPARE(views->layerBox()->count(), 2);
        QCOMPARE(views->headBox()->count(), 4);

        // Token strings on both axes of a map, and on the rows of an output.
        HeatmapView* weights = views->view(ViewsPanel::Weights, ViewsPanel::Original);
        weights->plot()->replot();
        const QStringList labels = qStrings(s.tokens.labels);
        QVERIFY(everyKth(weights->tickLabels(Qt::Vertical), labels));
        QVERIFY(everyKth(weights->tickLabels(Qt::Horizontal), labels));
        QVERIFY(weights->cellText(1, 0).contains("“" + labels[1] + "”"));
        HeatmapView* output = views->view(ViewsPanel::Output, ViewsPanel::Original);
        output->plot()->replot();
        QVERIFY(everyKth(output->tickLabels(Qt::Vertical), labels));
        QVERIFY(!everyKth(output->tickLabels(Qt::Horizontal), labels));
    }

    void typedTextAndIdsReplaceTheTokensUndoably() {
        QTemporaryDir dir;
        copyCheckpoint(dir, true);
        MainWindow w;
        w.show();
        QVERIFY(openModel(w, dir.path()));
        const TokenSpec before = w.document()->scenario().tokens;
        const CheckpointRef ref = *w.document()->scenario().model.checkpoint;

        QLineEdit* text = w.tokensEditor()->textBox();
        text->clear();
        QTest::keyClicks(text, "hello world");
        QTest::keyClick(text, Qt::Key_Return);
        QVERIFY(waitForIdle(w));
        const TokenSpec typed = checkpointText(ref, "hello world");
        QCOMPARE(w.document()->scenario().tokens.ids, typed.ids);
        QCOMPARE(w.tokensEditor()->idsModel()->rowCount(), int(typed.ids.size()));
        QCOMPARE(w.views()->current()->original.labels, typed.labels);
        QCOMPARE(text->text(), QString("hello world"));

        QLineEdit* ids = w.tokensEditor()->idsBox();
        ids->clear();
        QTest::keyClicks(ids, "5, 6 7");
        QTest::keyClick(ids, Qt::Key_Return);
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.document()->scenario().tokens.ids, (std::vector<long long>{5, 6, 7}));
        QVERIFY(text->text().isEmpty()); // the tokens are no longer the sentence's

        for (const QString bad : {"5, x", "5, 99999"}) {
            ids->setText(bad);
            QTest::keyClick(ids, Qt::Key_Return);
            QVERIFY2(w.errorText().startsWith("ids: "), qPrintable(w.errorText()));
            QCOMPARE(w.document()->scenario().tokens.ids, (std::vector<long long>{5, 6, 7}));
        }

        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->scenario().tokens.ids, typed.ids);
        QCOMPARE(text->text(), QString("hello world"));
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->scenario().tokens, before);
    }

    void aCheckpointWithoutTokenizerTakesIds() {
        MainWindow w;
        w.show();
        QVERIFY(openModel(w, kFixtures + "/hf/gpt2"));
        const Scenario& s = w.document()->scenario();
        QCOMPARE(s.tokens.ids, (std::vector<long long>{0, 1, 2, 3, 4, 5, 6, 7}));
        QVERIFY(!w.tokensEditor()->textBox()->isVisibleTo(w.tokensEditor()));
        QVERIFY(w.tokensEditor()->idsBox()->isVisibleTo(w.tokensEditor()));
        QCOMPARE(w.tokensEditor()->idsBox()->text(), QString("0, 1, 2, 3, 4, 5, 6, 7"));
        // Text on such a checkpoint is refused with the reason.
        QVERIFY(!openModel(w, kFixtures + "/hf/gpt2", QString("hello")));
        QVERIFY(w.errorText().contains("tokenizer"));
        QCOMPARE(w.document()->scenario().tokens.ids.size(), std::size_t(8));
    }

    void aThumbnailSelectsItsLayerAndHead() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(openModel(w, kFixtures + "/hf/gpt2"));
        ViewsPanel* views = w.views();
        HeadOverviewView* overview = views->overview();
        QCOMPARE(overview->layers(), 2);
        QCOMPARE(overview->heads(), 4);
        views->tabs()->setCurrentIndex(views->tabs()->indexOf(overview->parentWidget()));
        QApplication::processEvents();
        const QRect cell = overview->thumbnailRect(1, 2);
        QVERIFY(cell.width() >= 40); // readable at 1280 x 720
        QTest::mouseClick(overview, Qt::LeftButton, {}, cell.center());
        QCOMPARE(views->layer(), 1);
        QCOMPARE(views->head(), 2);
        QCOMPARE(views->tabs()->currentIndex(), 0);
        QCOMPARE(views->layerBox()->currentIndex(), 1);
    }

    void badCheckpointsAreRefusedAndTheScenarioKept() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSource("builtin:causal-model"));
        QVERIFY(waitForIdle(w));
        const Scenario before = w.document()->scenario();

        QTemporaryDir empty;
        QVERIFY(!openModel(w, empty.path()));
        QVERIFY2(w.errorText().contains("config.json"), qPrintable(w.errorText()));
        QVERIFY(w.errorText().contains(empty.path()));
        QCOMPARE(w.document()->scenario(), before);

        QTemporaryDir bert;
        copyCheckpoint(bert, false);
        QFile config(bert.filePath("config.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        QByteArray json = config.readAll();
        config.close();
        json.replace("\"model_type\": \"gpt2\"", "\"model_type\": \"bert\"");
        QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
        config.write(json);
        config.close();
        QVERIFY(!openModel(w, bert.path()));
        QVERIFY2(w.errorText().contains("bert"), qPrintable(w.errorText()));
        QCOMPARE(w.document()->scenario(), before);
    }
};

QTEST_MAIN(TestUiModel)
#include "test_ui_model.moc"
