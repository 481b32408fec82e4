// SPDX-License-Identifier: GPL-3.0-or-later
// The mask editor driven as a user would: kind and parameters, clicks and drags on the paint
// view, and/or/not, the all-masked-row warning, the block view, the mask diff, and masks
// imported from and exported to .npy files (through the code path the file dialogs call).
// Set ATTNLAB_MASK_EDITOR_PNG to a path to also save a picture of the editor.
#include "core/formats/npy.h"
#include "core/spec/mask_conventions.h"
#include "ui/mask/mask_block_view.h"
#include "ui/mask/mask_combine_panel.h"
#include "ui/mask/mask_diff_dialog.h"
#include "ui/mask/mask_editor.h"
#include "ui/mask/mask_kind_form.h"
#include "ui/mask/mask_paint_view.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::BoolMatrix;
using attnlab::MaskSpec;
using namespace attnlab::ui;

Q_DECLARE_METATYPE(attnlab::MaskSpec)

namespace {
// The spec carried by the i-th maskEdited signal.
MaskSpec specAt(const QSignalSpy& spy, int i) {
    return spy.at(i).at(0).value<MaskSpec>();
}

void sendMouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButtons buttons) {
    QMouseEvent event(type, pos, w->mapToGlobal(pos), Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(w, &event);
}
QPoint centreOf(const MaskPaintView* view, int s, int t) {
    return view->cellRect(s, t).center().toPoint();
}
} // namespace

class TestMaskEditor : public QObject {
    Q_OBJECT

    // A shown editor on `spec` for n tokens, with its paint view.
    struct Fixture {
        MaskEditor editor;
        MaskPaintView* paint;
        QSignalSpy spy;
        Fixture(const MaskSpec& spec, int n)
            : paint(editor.findChild<MaskPaintView*>()), spy(&editor, &MaskEditor::maskEdited) {
            editor.resize(430, 900); // the explorer's input column
            editor.setMask(spec, n);
            editor.show();
            QVERIFY(QTest::qWaitForWindowExposed(&editor));
        }
        template <class T>
        T* child(const char* name) {
            T* w = editor.findChild<T*>(name);
            Q_ASSERT(w);
            return w;
        }
        // A field of the edited mask's form (the second mask's form has fields of the same names).
        template <class T>
        T* field(const char* name) {
            T* w = child<MaskKindForm>("maskForm")->findChild<T*>(name);
            Q_ASSERT(w);
            return w;
        }
        QString warning() {
            auto* label = child<QLabel>("allMaskedWarning");
            return label->isVisibleTo(&editor) ? label->text() : QString();
        }
    };

private slots:
    void setMaskDoesNotEmit() {
        Fixture f(MaskSpec::window(2), 6);
        QCOMPARE(f.spy.count(), 0);
        QCOMPARE(f.editor.mask(), MaskSpec::window(2));
        QCOMPARE(f.child<QLabel>("description")->text(), QString("mask: window(2)"));
    }

    void kindAndRadiusEmitOnce() {
        Fixture f(MaskSpec::causal(), 8);
        auto* kind = f.field<QComboBox>("kind");
        kind->setCurrentIndex(kind->findText("causal_window"));
        QCOMPARE(f.spy.count(), 1);
        QCOMPARE(specAt(f.spy, 0), MaskSpec::causalWindow(1));
        f.field<QSpinBox>("radius")->setValue(3);
        QCOMPARE(f.spy.count(), 2);
        QCOMPARE(specAt(f.spy, 1), MaskSpec::causalWindow(3));
        kind->setCurrentIndex(kind->findText("dilated"));
        f.field<QSpinBox>("dilation")->setValue(3);
        QCOMPARE(f.spy.count(), 4);
        QCOMPARE(specAt(f.spy, 3), MaskSpec::dilated(3, 3));
        QCOMPARE(f.editor.mask(), MaskSpec::dilated(3, 3));
    }

    void globalWithItsBase() {
        Fixture f(MaskSpec::causal(), 8);
        auto* kind = f.field<QComboBox>("kind");
        kind->setCurrentIndex(kind->findText("global"));
        QCOMPARE(specAt(f.spy, 0), MaskSpec::global(1, MaskSpec::causal()));
        auto* base = f.field<QComboBox>("base");
        base->setCurrentIndex(base->findText("window"));
        f.field<QSpinBox>("count")->setValue(2);
        QCOMPARE(f.spy.count(), 3);
        QCOMPARE(specAt(f.spy, 2), MaskSpec::global(2, MaskSpec::window(1)));
    }

    void blockSizesText() {
        Fixture f(MaskSpec::causal(), 6);
        auto* kind = f.field<QComboBox>("kind");
        kind->setCurrentIndex(kind->findText("blocks"));
        QCOMPARE(specAt(f.spy, 0), MaskSpec::blocks({3, 3})); // the default split of n
        auto* sizes = f.field<QLineEdit>("sizes");
        sizes->setFocus();
        sizes->selectAll();
        QTest::keyClicks(sizes, "2,3,1");
        QTest::keyClick(sizes, Qt::Key_Return);
        QCOMPARE(f.spy.count(), 2);
        QCOMPARE(specAt(f.spy, 1), MaskSpec::blocks({2, 3, 1}));
        // Sizes that do not add up to n: refused with core's message, the last mask stays.
        sizes->selectAll();
        QTest::keyClicks(sizes, "2,2");
        QTest::keyClick(sizes, Qt::Key_Return);
        QCOMPARE(f.spy.count(), 2);
        QVERIFY(f.child<QLabel>("error")->isVisibleTo(&f.editor));
        QVERIFY(f.child<QLabel>("error")->text().contains("add up to 4, expected n = 6"));
        QCOMPARE(f.editor.mask(), MaskSpec::blocks({2, 3, 1}));
        // The document hands the same mask back (another field's edit, another layer with it):
        // the form shows the mask again and the error goes, though the mask did not change.
        f.editor.setMask(MaskSpec::blocks({2, 3, 1}), 6);
        QVERIFY(!f.child<QLabel>("error")->isVisibleTo(&f.editor));
        QCOMPARE(sizes->text(), QString("2,3,1"));
    }

    void clickTogglesOneCell() {
        Fixture f(MaskSpec::causal(), 6);
        QTest::mouseClick(f.paint, Qt::LeftButton, {}, centreOf(f.paint, 1, 4));
        QCOMPARE(f.spy.count(), 1);
        BoolMatrix expected = attnlab::buildMask(MaskSpec::causal(), 6);
        expected(1, 4) = true;
        QCOMPARE(specAt(f.spy, 0), MaskSpec::custom(expected));
        QCOMPARE(f.field<QComboBox>("kind")->currentText(), QString("custom"));
        // Clearing row 0's only key leaves it with none: the warning names it.
        QTest::mouseClick(f.paint, Qt::LeftButton, {}, centreOf(f.paint, 0, 0));
        QCOMPARE(f.spy.count(), 2);
        expected(0, 0) = false;
        QCOMPARE(specAt(f.spy, 1), MaskSpec::custom(expected));
        QCOMPARE(f.warning(), QString("⚠ row 0 has no allowed key: its output is 0"));
    }

    void dragSetsTouchedCellsOpposite() {
        // Down column 3 of causal from a blocked cell: every touched cell becomes allowed
        // (rows 0-2 change, rows 3-5 already were), one signal on release.
        Fixture f(MaskSpec::causal(), 6);
        sendMouse(f.paint, QEvent::MouseButtonPress, centreOf(f.paint, 0, 3), Qt::LeftButton);
        for (int s = 1; s < 6; ++s)
            sendMouse(f.paint, QEvent::MouseMove, centreOf(f.paint, s, 3), Qt::LeftButton);
        QCOMPARE(f.spy.count(), 0);
        sendMouse(f.paint, QEvent::MouseButtonRelease, centreOf(f.paint, 5, 3), Qt::NoButton);
        QCOMPARE(f.spy.count(), 1);
        BoolMatrix expected = attnlab::buildMask(MaskSpec::causal(), 6);
        for (int s = 0; s < 3; ++s)
            expected(s, 3) = true;
        QCOMPARE(specAt(f.spy, 0), MaskSpec::custom(expected));
    }

    void fastDragLeavesNoGap() {
        // One move from (2,0) to (2,5): the cells between are touched too.
        Fixture f(MaskSpec::all(), 6);
        sendMouse(f.paint, QEvent::MouseButtonPress, centreOf(f.paint, 2, 0), Qt::LeftButton);
        sendMouse(f.paint, QEvent::MouseMove, centreOf(f.paint, 2, 5), Qt::LeftButton);
        sendMouse(f.paint, QEvent::MouseButtonRelease, centreOf(f.paint, 2, 5), Qt::NoButton);
        QCOMPARE(f.spy.count(), 1);
        BoolMatrix expected = BoolMatrix::Constant(6, 6, true);
        expected.row(2).setConstant(false);
        QCOMPARE(specAt(f.spy, 0), MaskSpec::custom(expected));
        QCOMPARE(f.warning(), QString("⚠ row 2 has no allowed key: its output is 0"));
    }

    void notAndOr() {
        Fixture f(MaskSpec::causal(), 4);
        f.child<QPushButton>("not")->click();
        QCOMPARE(f.spy.count(), 1);
        QCOMPARE(specAt(f.spy, 0), MaskSpec::negation(MaskSpec::causal()));
        QCOMPARE(f.child<QLabel>("description")->text(), QString("mask: not(causal)"));
        QCOMPARE(f.warning(), QString("⚠ row 3 has no allowed key: its output is 0"));
        f.editor.setMask(MaskSpec::causal(), 4);
        QCOMPARE(f.warning(), QString());
        f.child<QPushButton>("and")->click(); // the second mask's default: window(1)
        QCOMPARE(specAt(f.spy, 1), MaskSpec::both({MaskSpec::causal(), MaskSpec::window(1)}));
        QCOMPARE(f.child<QLabel>("description")->text(), QString("mask: and(causal, window(1))"));
        auto* operand = f.editor.findChild<MaskCombinePanel*>();
        auto* kind = operand->findChild<QComboBox*>("kind");
        kind->setCurrentIndex(kind->findText("prefix"));
        QCOMPARE(f.spy.count(), 2); // choosing the second mask is not an edit
        f.child<QPushButton>("or")->click();
        QCOMPARE(specAt(f.spy, 2),
                 MaskSpec::either({MaskSpec::both({MaskSpec::causal(), MaskSpec::window(1)}),
                                   MaskSpec::prefix(2)}));
    }

    void allMaskedWarning_data() {
        QTest::addColumn<MaskSpec>("spec");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("warning");
        QTest::newRow("none") << MaskSpec::none() << 4
                              << "⚠ rows 0, 1, 2, 3 have no allowed key: their output is 0";
        QTest::newRow("not prefix(2)") << MaskSpec::negation(MaskSpec::prefix(2)) << 5
                                       << "⚠ row 4 has no allowed key: its output is 0";
        QTest::newRow("and(prefix(3), not causal)")
            << MaskSpec::both({MaskSpec::prefix(3), MaskSpec::negation(MaskSpec::causal())}) << 5
            << "⚠ rows 2, 3, 4 have no allowed key: their output is 0";
        QTest::newRow("none, many rows")
            << MaskSpec::none() << 20
            << "⚠ rows 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 8 more have no allowed key: "
               "their output is 0";
        QTest::newRow("prefix(2)") << MaskSpec::prefix(2) << 5 << QString();
    }
    void allMaskedWarning() {
        QFETCH(MaskSpec, spec);
        QFETCH(int, n);
        QFETCH(QString, warning);
        Fixture f(spec, n);
        QCOMPARE(f.warning(), warning);
    }

    void blockViewCounts() {
        Fixture f(MaskSpec::causal(), 10);
        auto* blocks = f.editor.findChild<MaskBlockView*>();
        blocks->setTile(4);
        const attnlab::TileMap& map = blocks->tileMap();
        QCOMPARE(map.rows, 3);
        QCOMPARE(map.empty, 3LL);
        QCOMPARE(map.partial, 3LL);
        QCOMPARE(map.full, 3LL);
        const QString summary = f.child<QLabel>("tileSummary")->text();
        QVERIFY2(summary.contains("33.3%") && summary.contains("55.0%"), qPrintable(summary));
        f.child<QSpinBox>("tile")->setValue(5);
        QCOMPARE(blocks->tileMap().partial, 2LL);
        QCOMPARE(blocks->tileMap().empty, 1LL);
        QCOMPARE(blocks->tileMap().full, 1LL);
        QCOMPARE(f.spy.count(), 0); // the tile is a view setting, not a mask edit
    }

    void fitsTheExplorersInputColumn() {
        // At 1600 x 1000 the explorer's input column is about 370 pixels wide: the editor (forms,
        // tiles and legend in one column) needs no horizontal scroll bar there.
        Fixture f(MaskSpec::causal(), 10);
        const int needed = f.editor.minimumSizeHint().width();
        QVERIFY2(needed <= 360, qPrintable(QString("the mask editor needs %1 pixels").arg(needed)));
    }

    void diffDialog() {
        Fixture f(MaskSpec::causal(), 10);
        f.child<QPushButton>("compare")->click();
        auto* dialog = f.editor.findChild<MaskDiffDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(dialog->diff().identical()); // causal against the default B = causal
        dialog->choosePreset(2);             // causal window: radius 3 vs W = 3 keys
        QCOMPARE(dialog->diff().onlyA, 7LL);
        QCOMPARE(dialog->diff().onlyB, 0LL);
        dialog->findChild<QSpinBox*>("parameter")->setValue(2);
        QCOMPARE(dialog->diff().onlyA, 8LL);
        dialog->choosePreset(3); // top-left vs bottom-right: identical when square
        QVERIFY(dialog->diff().identical());
        QVERIFY(dialog->findChild<QLabel*>("counts")->text().contains("identical"));
        dialog->choosePreset(0);
        f.child<QPushButton>("not")->click(); // A follows the editor
        QCOMPARE(dialog->diff().onlyB, 55LL);
        QCOMPARE(dialog->diff().onlyA, 45LL);
    }

    void diffStartsFromTheMaskAndAppliesTheOtherConvention() {
        // An off-by-one hunt: window(3) means 7 keys; the diff opens on radius 3 vs W = 3 keys
        // centred, and "Use B" makes the layer's mask the 3-key window.
        Fixture f(MaskSpec::window(3), 12);
        f.child<QPushButton>("compare")->click();
        auto* dialog = f.editor.findChild<MaskDiffDialog*>();
        QVERIFY(dialog);
        QCOMPARE(dialog->findChild<QComboBox*>("preset")->currentIndex(), 1);
        QCOMPARE(dialog->findChild<QSpinBox*>("parameter")->value(), 3);
        QVERIFY(dialog->diff().onlyA > 0);
        QCOMPARE(dialog->diff().onlyB, 0LL);
        dialog->findChild<QPushButton*>("useB")->click();
        QCOMPARE(f.spy.count(), 1);
        const auto applied = f.spy.last().at(0).value<MaskSpec>();
        QCOMPARE(applied, attnlab::conventionMask(attnlab::MaskConvention::WindowKeysCentred, 3));
        QVERIFY(!dialog->findChild<QPushButton*>("useB")->isEnabled()); // B is the mask now
    }

    void largeMaskKeepsThinBandsVisible() {
        // 2000 tokens in a few hundred pixels: drawn at screen resolution, and the one-cell
        // diagonal of window(0) still shows (a pixel shows "allowed" if any of its cells is).
        Fixture f(MaskSpec::window(0), 2000);
        const QImage image = f.paint->grab().toImage();
        QVERIFY(f.paint->cellRect(0, 0).width() < 1);
        const QColor allowed = f.paint->palette().color(QPalette::Highlight);
        const QColor blocked = f.paint->palette().color(QPalette::Base);
        for (int s : {40, 700, 1500, 1950}) { // a few pixels inside the grid's frame line
            QCOMPARE(image.pixelColor(f.paint->cellRect(s, s).center().toPoint()), allowed);
            QCOMPARE(image.pixelColor(f.paint->cellRect(s, (s + 1000) % 2000).center().toPoint()),
                     blocked);
        }
    }

    void importSetsAFileMask() {
        Fixture f(MaskSpec::all(), 3);
        QTemporaryDir dir;
        const QString path = dir.filePath("m.npy");
        const BoolMatrix causal = attnlab::buildMask(MaskSpec::causal(), 3);
        attnlab::writeNpyMask(path.toStdString(), causal);
        QVERIFY(f.editor.importMask(path));
        QCOMPARE(f.spy.count(), 1);
        const MaskSpec imported = specAt(f.spy, 0);
        QCOMPARE(imported, f.editor.mask());
        QCOMPARE(imported.kind, MaskSpec::Kind::Custom);
        QCOMPARE(QString::fromStdString(imported.file), QFileInfo(path).absoluteFilePath());
        QVERIFY((imported.cells == causal).all());
        QCOMPARE(f.child<QLabel>("description")->text(), QString("mask: file(m.npy)"));
        QVERIFY(!f.child<QLabel>("error")->isVisibleTo(&f.editor));
    }

    void importRefusalKeepsTheMask_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("another size") << QByteArray::fromStdString(attnlab::npyMaskBytes(
                                             attnlab::buildMask(MaskSpec::causal(), 4)))
                                      << "holds a 4 x 4 mask, expected 3 x 3 for n = 3 tokens";
        QTest::newRow("not 0/1") << QByteArray::fromStdString(
                                        attnlab::npyBytes(Eigen::MatrixXd::Constant(3, 3, 2)))
                                 << "entry (0, 0) is 2";
        QTest::newRow("truncated")
            << QByteArray::fromStdString(
                   attnlab::npyMaskBytes(attnlab::buildMask(MaskSpec::causal(), 3)).substr(0, 130))
            << "truncated";
        QTest::newRow("not a .npy") << QByteArray("hello") << "not a .npy file";
    }
    void importRefusalKeepsTheMask() {
        QFETCH(QByteArray, content);
        QFETCH(QString, fragment);
        Fixture f(MaskSpec::window(1), 3);
        QTemporaryDir dir;
        QFile file(dir.filePath("bad.npy"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        QVERIFY(!f.editor.importMask(file.fileName()));
        QCOMPARE(f.spy.count(), 0);
        QCOMPARE(f.editor.mask(), MaskSpec::window(1));
        auto* error = f.child<QLabel>("error");
        QVERIFY(error->isVisibleTo(&f.editor));
        QVERIFY2(error->text().contains("bad.npy") && error->text().contains(fragment),
                 qPrintable(error->text()));
        QVERIFY(!f.editor.importMask(dir.filePath("missing.npy")));
        QVERIFY2(error->text().contains("missing.npy: no such file"), qPrintable(error->text()));
        QCOMPARE(f.editor.mask(), MaskSpec::window(1));
    }

    void exportWritesTheCells() {
        Fixture f(MaskSpec::causalWindow(1), 4);
        QTemporaryDir dir;
        const QString path = dir.filePath("out.npy");
        QVERIFY(f.editor.exportMask(path));
        const BoolMatrix written = attnlab::readNpyMask(path.toStdString());
        QVERIFY((written == attnlab::buildMask(MaskSpec::causalWindow(1), 4)).all());
        QVERIFY(!f.editor.exportMask(dir.filePath("no/such/dir/out.npy")));
        QVERIFY(f.child<QLabel>("error")->text().contains("cannot write"));
        QCOMPARE(f.spy.count(), 0);
    }

    void picture() {
        Fixture f(MaskSpec::both({MaskSpec::prefix(2), MaskSpec::window(2)}), 10);
        f.editor.findChild<MaskBlockView*>()->setTile(4);
        QTest::mouseClick(f.paint, Qt::LeftButton, {}, centreOf(f.paint, 6, 6));
        QTest::mouseClick(f.paint, Qt::LeftButton, {}, centreOf(f.paint, 6, 5));
        QTest::mouseClick(f.paint, Qt::LeftButton, {}, centreOf(f.paint, 6, 4));
        const QPixmap picture = f.editor.grab();
        QVERIFY(!picture.isNull());
        const QString path = qEnvironmentVariable("ATTNLAB_MASK_EDITOR_PNG");
        if (path.isEmpty()) return;
        QVERIFY(picture.save(path));
        // The same in a dark palette, and the diff dialog on the causal-window preset.
        const QString stem = path.chopped(path.endsWith(".png") ? 4 : 0);
        QPalette dark;
        for (auto [role, rgb] : {std::pair{QPalette::Window, 0x2b2b2b},
                                 {QPalette::WindowText, 0xdddddd},
                                 {QPalette::Base, 0x1e1e1e},
                                 {QPalette::Text, 0xdddddd},
                                 {QPalette::Button, 0x3a3a3a},
                                 {QPalette::ButtonText, 0xdddddd},
                                 {QPalette::Highlight, 0x2a82da},
                                 {QPalette::Mid, 0x555555}})
            dark.setColor(role, QColor::fromRgb(QRgb(rgb)));
        f.editor.setPalette(dark);
        QVERIFY(f.editor.grab().save(stem + "_dark.png"));
        f.editor.setMask(MaskSpec::causal(), 10);
        f.child<QPushButton>("compare")->click();
        auto* dialog = f.editor.findChild<MaskDiffDialog*>();
        dialog->choosePreset(2);
        QCoreApplication::processEvents(); // let the layout fit the new texts
        QVERIFY(dialog->grab().save(stem + "_diff.png"));
    }
};

QTEST_MAIN(TestMaskEditor)
#include "test_mask_editor.moc"
