// SPDX-License-Identifier: GPL-3.0-or-later
// ScenarioDocument: every edit is one undoable step, an invalid edit is refused with a message and
// changes nothing, and save -> open gives the same scenario back.
#include "core/io/scenario_reader.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/model_editor.h"

#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace attnlab;
using namespace attnlab::ui;

class TestUiDocument : public QObject {
    Q_OBJECT
private slots:
    void opensOnTheDefaultScenario() {
        ScenarioDocument doc;
        QCOMPARE(doc.scenario(), loadScenario("builtin:positional-counterexample"));
        QVERIFY(!doc.isModified());
    }

    void undoAndRedoRestoreEachStep() {
        ScenarioDocument doc;
        const Scenario before = doc.scenario();
        Scenario next = before;
        next.precision = Precision::Float64;
        QSignalSpy changed(&doc, &ScenarioDocument::changed);
        QVERIFY(doc.editScenario(next, "precision"));
        QCOMPARE(changed.count(), 1);
        QVERIFY(doc.isModified());
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario(), before);
        QVERIFY(!doc.isModified());
        doc.undoStack()->redo();
        QCOMPARE(doc.scenario().precision, Precision::Float64);
    }

    void spinBoxStepsOnOneFieldAreOneUndoStep() {
        ScenarioDocument doc;
        ModelEditor editor(&doc);
        auto* offset = editor.findChild<QSpinBox*>("positionOffset");
        QVERIFY(offset);
        const Scenario before = doc.scenario();
        for (int step = 0; step < 3; ++step)
            offset->stepUp();
        QCOMPARE(doc.scenario().model.positional.offset, before.model.positional.offset + 3);
        QCOMPARE(doc.undoStack()->count(), 1);
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario(), before);
        QCOMPARE(offset->value(), int(before.model.positional.offset));
    }

    void editsOfTwoFieldsStayTwoUndoSteps() {
        ScenarioDocument doc;
        ModelEditor editor(&doc);
        auto* offset = editor.findChild<QSpinBox*>("positionOffset");
        auto* layers = editor.findChild<QSpinBox*>("layerCount");
        QVERIFY(offset && layers);
        const Scenario before = doc.scenario();
        offset->stepUp();
        layers->stepUp();
        offset->stepUp();
        QCOMPARE(doc.undoStack()->count(), 3);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario().model.positional.offset, before.model.positional.offset + 1);
        QCOMPARE(doc.scenario().model.layers.size(), before.model.layers.size());
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario(), before);
    }

    void invalidEditIsRefusedAndChangesNothing_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("permutation not a bijection") << "perm"
                                                     << "permutation";
        QTest::newRow("weights of the wrong shape") << "weights"
                                                    << "layers[0]";
        QTest::newRow("sinusoidal positions in exact mode") << "exact"
                                                            << "exact";
        QTest::newRow("perturbed token outside the input") << "perturb"
                                                           << "transform";
    }
    void invalidEditIsRefusedAndChangesNothing() {
        QFETCH(QString, what);
        QFETCH(QString, mentions);
        ScenarioDocument doc;
        const ExplorerState before = doc.state();
        ExplorerState next = before;
        if (what == "perm") {
            next.scenario.permutation.kind = PermutationSpec::Kind::Images;
            next.scenario.permutation.images = {0, 0};
        } else if (what == "weights") {
            next.scenario.model.layers[0].wq = MatrixSpec::given(Matrix<Rational>::Ones(5, 2));
        } else if (what == "exact") {
            next.scenario.model.positional.kind = PositionalSpec::Kind::Sinusoidal;
        } else {
            next.transform.kind = Transform::Kind::Perturbation;
            next.transform.token = 7;
        }
        QSignalSpy refused(&doc, &ScenarioDocument::refused);
        QSignalSpy changed(&doc, &ScenarioDocument::changed);
        QVERIFY(!doc.edit(next, "bad"));
        QCOMPARE(refused.count(), 1);
        QVERIFY2(refused.first().first().toString().contains(mentions),
                 qPrintable(refused.first().first().toString()));
        QCOMPARE(changed.count(), 0);
        QVERIFY(doc.state() == before);
        QCOMPARE(doc.undoStack()->count(), 0);
    }

    void saveThenOpenRoundTrips() {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.json");
        ScenarioDocument doc;
        QVERIFY(doc.open("builtin:alibi-causal"));
        Scenario edited = doc.scenario();
        edited.notes = "edited in the explorer";
        Matrix<Rational> tokens = edited.tokens.materialize<Rational>();
        tokens(0, 0) = Rational(1, 3);
        edited.tokens = TokenSpec::given(tokens);
        QVERIFY(doc.editScenario(edited, "notes"));
        QVERIFY(doc.saveAs(path));
        QVERIFY(!doc.isModified());
        QCOMPARE(doc.filePath(), path);
        ScenarioDocument other;
        QVERIFY(other.open(path));
        QCOMPARE(other.scenario(), edited);
    }

    void badFileIsRefusedAndTheScenarioStays() {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"attnlab-scenario\", \"version\": 1, \"tokens\": [[1, 2], [3]]}");
        f.close();
        ScenarioDocument doc;
        const Scenario before = doc.scenario();
        QSignalSpy refused(&doc, &ScenarioDocument::refused);
        QVERIFY(!doc.open(path));
        QCOMPARE(refused.count(), 1);
        QVERIFY(refused.first().first().toString().contains("bad.json"));
        QCOMPARE(doc.scenario(), before);
    }
};

QTEST_MAIN(TestUiDocument)
#include "test_ui_document.moc"
