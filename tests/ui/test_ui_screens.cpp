// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's editors and the mask diff on a 1280x720 screen (a projector): a window restored
// from a larger screen is brought onto this one, every editor tab shows without scroll arrows and
// the mask tab names the layer shown, the model editor needs no sideways scrolling, the whole
// mask grid of a 6-token scenario shows, and the mask diff fits the screen with its buttons.
// With ATTNLAB_SHOTS=DIR set, each screen is also saved as DIR/NAME.png to look at.
#include "ui/editors/model_editor.h"
#include "ui/mask/mask_diff_dialog.h"
#include "ui/mask/mask_editor.h"
#include "ui/mask/mask_paint_view.h"
#include "ui/panels/property_panel.h"
#include "ui_support.h"

#include <QAction>
#include <QComboBox>
#include <QDataStream>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// Saves `widget` as ATTNLAB_SHOTS/name.png when that variable names a folder.
void shot(QWidget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("ATTNLAB_SHOTS");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    widget.grab().save(QDir(dir).filePath(name + ".png"));
}

/// QWidget::saveGeometry's record (format 3.0) of a window with frame `frame` on a screen
/// `screenWidth` pixels wide.
QByteArray savedGeometry(const QRect& frame, int screenWidth) {
    QByteArray bytes;
    QDataStream stream(&bytes, QIODevice::WriteOnly);
    stream.setVersion(QDataStream::Qt_4_0);
    stream << quint32(0x1D9D0CB) << quint16(3) << quint16(0) << frame << frame << qint32(0)
           << quint8(0) << quint8(0) << qint32(screenWidth) << frame;
    return bytes;
}

QScrollArea* tabArea(MainWindow& w, QWidget* editor) {
    w.showEditorTab(editor);
    QApplication::processEvents();
    return qobject_cast<QScrollArea*>(w.inputs()->currentWidget());
}

} // namespace

class TestUiScreens : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("AttnLabTestScreens");
        QCoreApplication::setApplicationName("test_ui_screens");
        QSettings().clear();
    }
    void cleanup() { QSettings().clear(); }

    void aWindowSavedOnALargerScreenIsBroughtOntoThisOne() {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        {
            QSettings settings;
            // Saved on a screen a quarter wider than this one (1600 px for 1280: restoreGeometry
            // takes it), larger than this one, 100 px from its corner.
            const int screenWidth = available.width() * 5 / 4;
            const QRect saved(available.topLeft() + QPoint(100, 100),
                              QSize(screenWidth - 40, available.height() + 280));
            settings.setValue("window/geometry", savedGeometry(saved, screenWidth));
            QSplitter wide;
            for (int i = 0; i < 3; ++i)
                wide.addWidget(new QWidget);
            wide.resize(saved.width(), 100);
            wide.setSizes({430, saved.width() - 850, 420});
            settings.setValue("window/splitter", wide.saveState());
        }
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(waitForIdle(w));
        shot(w, "restored");
        QVERIFY2(available.contains(w.frameGeometry()),
                 qPrintable(QString("frame %1,%2 %3x%4 on %5x%6")
                                .arg(w.frameGeometry().x())
                                .arg(w.frameGeometry().y())
                                .arg(w.frameGeometry().width())
                                .arg(w.frameGeometry().height())
                                .arg(available.width())
                                .arg(available.height())));
        // The panels keep usable widths: the views their least, the editors' tabs and the verdicts'
        // columns whole.
        QVERIFY(w.splitter()->sizes()[1] >= w.splitter()->widget(1)->minimumSizeHint().width());
        QTabBar* tabs = w.inputs()->tabBar();
        for (int i = 0; i < tabs->count(); ++i)
            QVERIFY2(tabs->rect().contains(tabs->tabRect(i)), qPrintable(tabs->tabText(i)));
        QTreeWidget* verdicts = w.properties()->tree();
        for (int c = 0; c < verdicts->columnCount(); ++c)
            QVERIFY2(verdicts->columnWidth(c) >=
                         static_cast<QAbstractItemView*>(verdicts)->sizeHintForColumn(c),
                     qPrintable(QString("verdict column %1").arg(c)));
    }

    void theEditorTabsShowWithoutArrowsAndTheMaskTabNamesItsLayer() {
        MainWindow w;
        QVERIFY(showAt1280(w, "builtin:causal-model")); // in floats: fourteen layers are quick
        QTabBar* bar = w.inputs()->tabBar();
        const int maskTab = w.inputs()->indexOf(tabArea(w, w.modelEditor()->maskEditor()));
        const QString layer0 = bar->tabText(maskTab);
        // Fourteen layers, the last one edited: its number in the title, every title whole.
        w.modelEditor()->findChild<QSpinBox*>("layerCount")->setValue(14);
        QVERIFY(waitForIdle(w));
        w.modelEditor()->setCurrentLayer(13);
        QApplication::processEvents();
        shot(w, "tabs");
        const QString layer13 = bar->tabText(maskTab);
        QVERIFY2(layer13.startsWith("Mask") && layer13.contains("13") && layer13 != layer0,
                 qPrintable(layer13));
        const int padding = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
        for (int i = 0; i < bar->count(); ++i) {
            const QRect tab = bar->tabRect(i);
            QVERIFY2(bar->rect().contains(tab), qPrintable(bar->tabText(i)));
            QVERIFY2(tab.width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(i)) + padding,
                     qPrintable(bar->tabText(i) + " is elided"));
        }
        for (const QToolButton* arrow : bar->findChildren<QToolButton*>())
            QVERIFY(!arrow->isVisible());
        // A scenario of one layer: its layer 0 is the one edited, and the title says so.
        QVERIFY(w.openSource("builtin:rope-shift"));
        QVERIFY(waitForIdle(w));
        QCOMPARE(w.modelEditor()->currentLayer(), 0);
        QCOMPARE(bar->tabText(maskTab), layer0);
    }

    void theModelEditorNeedsNoSidewaysScrolling() {
        // The editors' panel is 300 px wide at 1280 x 720, 430 at 1600 x 1000.
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            MainWindow w;
            QVERIFY(showAt1280(w, "builtin:window-three-layers"));
            if (size.width() == 1600) {
                w.resize(size);
                QApplication::processEvents();
                w.splitter()->setSizes({430, w.splitter()->width() - 860, 420});
                QApplication::processEvents();
            }
            QScrollArea* area = tabArea(w, w.modelEditor());
            QVERIFY(area);
            shot(w, QString("model-%1").arg(size.width()));
            QCOMPARE(area->horizontalScrollBar()->maximum(), 0);
            QVERIFY(w.modelEditor()->minimumSizeHint().width() <= area->viewport()->width());
            QList<QWidget*> named;
            for (const char* name : {"precision", "backend", "positionOffset", "layerCount",
                                     "heads", "mixer", "mixerScale"})
                named << w.modelEditor()->findChild<QWidget*>(name);
            for (QToolButton* edit : w.modelEditor()->findChildren<QToolButton*>())
                if (edit->text() == "Edit…") named << edit;
            QCOMPARE(named.size(), 12);
            for (QWidget* field : named) {
                QVERIFY(field);
                const int left = field->mapTo(area->viewport(), QPoint(0, 0)).x();
                QVERIFY2(left >= 0 && left + field->width() <= area->viewport()->width(),
                         qPrintable(field->objectName() + " " + QString::number(left)));
            }
            // Every label and placeholder whole.
            for (QLabel* label : w.modelEditor()->findChildren<QLabel*>())
                if (label->isVisible())
                    QVERIFY2(label->width() >= label->minimumSizeHint().width(),
                             qPrintable(label->text()));
            for (QLineEdit* line : w.modelEditor()->findChildren<QLineEdit*>())
                if (line->isVisible() && !line->placeholderText().isEmpty())
                    QVERIFY2(line->width() >=
                                 line->fontMetrics().horizontalAdvance(line->placeholderText()) + 8,
                             qPrintable(line->placeholderText()));
        }
    }

    void theWholeMaskGridOfSixTokensShows() {
        MainWindow w;
        QVERIFY(showAt1280(w, "builtin:causal-model"));
        QCOMPARE(w.document()->scenario().n(), 6);
        QScrollArea* area = tabArea(w, w.modelEditor()->maskEditor());
        QVERIFY(area);
        shot(w, "mask");
        auto* paint = w.modelEditor()->maskEditor()->findChild<MaskPaintView*>();
        QVERIFY(paint && paint->isVisible());
        const QRectF grid = paint->cellRect(0, 0).united(paint->cellRect(5, 5));
        const QRect shown(paint->mapTo(area->viewport(), grid.topLeft().toPoint()),
                          grid.size().toSize());
        QVERIFY2(area->viewport()->rect().contains(shown),
                 qPrintable(QString("grid at y %1..%2, viewport height %3")
                                .arg(shown.top())
                                .arg(shown.bottom())
                                .arg(area->viewport()->height())));
        QVERIFY(paint->cellRect(0, 0).width() >= 24); // cells big enough to click
    }

    void theVerdictHeadersAreWholeInPresentationMode() {
        // At 1280 x 720 in presentation mode the names and values leave the whole headers no
        // room: the short ones show, each whole in its column.
        MainWindow w;
        QVERIFY(showAt1280(w, "builtin:window-stray-cell"));
        auto* presentation = w.findChild<QAction*>("presentation");
        QVERIFY(presentation);
        presentation->setChecked(true);
        QApplication::processEvents();
        shot(w, "presentation");
        QTreeWidget* tree = w.properties()->tree();
        const QFontMetrics metrics(tree->header()->font());
        for (int c = 1; c < tree->columnCount(); ++c) {
            const QString header = tree->headerItem()->text(c);
            QVERIFY2(metrics.horizontalAdvance(header) < tree->columnWidth(c), qPrintable(header));
        }
        QVERIFY(tree->headerItem()->text(2) == "deviation" ||
                tree->headerItem()->text(2) == "dev.");
        presentation->setChecked(false);
        QApplication::processEvents();
        QCOMPARE(tree->headerItem()->text(1), QString("verdict"));
    }

    void theMaskDiffFitsTheScreenWithItsButtons() {
        MainWindow w;
        QVERIFY(showAt1280(w, "builtin:causal-model"));
        tabArea(w, w.modelEditor()->maskEditor());
        auto* compare = w.modelEditor()->maskEditor()->findChild<QPushButton*>("compare");
        QVERIFY(compare);
        compare->click();
        auto* dialog = w.modelEditor()->maskEditor()->findChild<MaskDiffDialog*>();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        shot(*dialog, "mask-diff");
        const QRect available = dialog->screen()->availableGeometry();
        QVERIFY2(available.contains(dialog->frameGeometry()),
                 qPrintable(QString("frame %1,%2 %3x%4")
                                .arg(dialog->frameGeometry().x())
                                .arg(dialog->frameGeometry().y())
                                .arg(dialog->frameGeometry().width())
                                .arg(dialog->frameGeometry().height())));
        auto* box = dialog->findChild<QDialogButtonBox*>();
        QVERIFY(box);
        QList<QAbstractButton*> buttons = box->buttons();
        QCOMPARE(buttons.size(), 2); // Use B, Close
        for (QAbstractButton* button : buttons) {
            QVERIFY(button->isVisible());
            const QRect r(button->mapTo(dialog, QPoint(0, 0)), button->size());
            QVERIFY2(dialog->rect().contains(r), qPrintable(button->text()));
        }
    }
};

// Under the offscreen platform the screen is 1280x720 (its default is 800x600); another
// platform keeps the screen it has.
int main(int argc, char** argv) {
    QTemporaryDir dir;
    if (qEnvironmentVariable("QT_QPA_PLATFORM") == "offscreen") {
        QFile config(dir.filePath("screen.json"));
        if (!config.open(QIODevice::WriteOnly)) return 2;
        config.write(R"({"screens": [{"name": "projector", "width": 1280, "height": 720}]})");
        config.close();
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toLocal8Bit());
    }
    QApplication app(argc, argv);
    TestUiScreens test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_ui_screens.moc"
