// SPDX-License-Identifier: GPL-3.0-or-later
// Figure export through the window: one file per figure in PNG, SVG or PDF with the title block,
// cells as vector shapes in SVG, one colour range for the original and transformed maps of a row,
// values in small maps only, refusals that write nothing, and a question before replacing files.
#include "core/checks/report_export.h"
#include "core/formats/color_maps.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_figure.h"
#include "ui/panels/views_panel.h"
#include "ui/views/figure.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFileDialog>
#include <QImage>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSvgGenerator>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>

using namespace attnlab::ui;

namespace {

QString scenarioName(MainWindow& w) {
    return QString::fromStdString(w.document()->scenario().name);
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// Answers every question box that shows while it lives with `button`, counting them.
class Answerer {
public:
    explicit Answerer(QMessageBox::StandardButton button) {
        QObject::connect(&poll_, &QTimer::timeout, &poll_, [this, button] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                ++asked;
                box->button(button)->click();
            }
        });
        poll_.start(10);
    }
    int asked = 0;

private:
    QTimer poll_;
};

/// The SVG of a figure with one panel showing an n x n matrix of distinct values.
QByteArray svgOfSquare(int n) {
    Figure figure;
    figure.title = "square";
    figure.columns = 1;
    FigurePanel panel;
    panel.matrix.values = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n * n; ++i)
        panel.matrix.values(i / n, i % n) = 0.5 + i;
    panel.range = attnlab::colourRange(panel.scale, panel.matrix.values);
    figure.panels = {panel};
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(figureSize(figure));
    QPainter painter(&svg);
    paintFigure(painter, figure);
    painter.end();
    return buffer.data();
}

} // namespace

class TestUiFigureExport : public QObject {
    Q_OBJECT
private slots:
    void writesExactlyOneFile_data() {
        QTest::addColumn<QString>("suffix");
        for (const char* s : {"png", "svg", "pdf"})
            QTest::newRow(s) << s;
    }
    void writesExactlyOneFile() {
        QFETCH(QString, suffix);
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        const QString path = dir.filePath("figure." + suffix);
        QVERIFY2(w.exportFigure(path), qPrintable(w.errorText()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"figure." + suffix});
        QVERIFY(QFileInfo(path).size() > 1000);
        if (suffix == "pdf") QVERIFY(readAll(path).startsWith("%PDF"));
    }

    // The PNG is the figure at twice its size, with the scenario's name written above the maps.
    void pngCarriesTheTitleBlock() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const Figure figure = viewsFigure(*w.views(), scenarioName(w), "a verdict");
        QCOMPARE(figure.title, scenarioName(w));
        QCOMPARE(int(figure.panels.size()), 9);
        QVERIFY(figure.subtitle.join("\n").contains("layer 0, head 0"));
        QCOMPARE(figure.subtitle.last(), QString("a verdict"));
        QTemporaryDir dir;
        QVERIFY(w.exportFigure(dir.filePath("f.png")));
        const QImage image(dir.filePath("f.png"));
        const QTreeWidgetItem* selected = w.properties()->tree()->currentItem();
        QVERIFY(selected); // the window selects the first failing property
        const QString verdict = QString::fromStdString(
            attnlab::verdictLine(*w.properties()->report(selected->text(0))));
        const Figure exported = viewsFigure(*w.views(), scenarioName(w), verdict);
        QCOMPARE(image.size(), figureSize(exported) * 2);
        int dark = 0; // the title's ink in the band above the maps
        for (int y = 40; y < 130; ++y)
            for (int x = 40; x < 600; ++x)
                dark += qGray(image.pixel(x, y)) < 100;
        QVERIFY2(dark > 200, qPrintable(QString::number(dark)));
    }

    void svgCellsAreVectorShapes() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        QVERIFY(w.exportFigure(dir.filePath("f.svg")));
        const QByteArray svg = readAll(dir.filePath("f.svg"));
        QVERIFY(svg.contains(scenarioName(w).toUtf8()));
        QVERIFY(!svg.contains("<image"));
        qsizetype cells = 0;
        for (const FigurePanel& p : viewsFigure(*w.views(), scenarioName(w), "").panels)
            cells += p.matrix.values.size();
        QVERIFY(cells >= 9 * 4);
        QVERIFY2(svg.count("<rect") + svg.count("<path") >= cells,
                 qPrintable(QString("%1 shapes for %2 cells")
                                .arg(svg.count("<rect") + svg.count("<path"))
                                .arg(cells)));
    }

    void aRowIsThreePanelsWithTheSelectedVerdict() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.properties()->select("permutation-equivariance");
        const Figure row = viewsFigure(*w.views(), scenarioName(w), "v", ViewsPanel::Weights);
        QCOMPARE(int(row.panels.size()), 3);
        QVERIFY(row.panels[0].title.startsWith("A"));
        QVERIFY(figureSize(row).height() < figureSize(viewsFigure(*w.views(), "", "")).height());
        QCOMPARE(w.figureFileName(ViewsPanel::Weights),
                 figureStem(scenarioName(w), 0, 0) + "_A_permutation_equivariance.svg");
        QVERIFY(figureStem(scenarioName(w), 0, 0).endsWith("_L0_H0"));
        QTemporaryDir dir;
        QVERIFY(w.exportFigure(dir.filePath("row.svg"), ViewsPanel::Weights));
        QVERIFY(readAll(dir.filePath("row.svg"))
                    .contains("permutation-equivariance fails: max deviation"));
    }

    // File > Export row…: the row asked for, then the file dialog's name, gives a figure of that
    // row alone.
    void theMenuExportsTheRowChosen() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QAction* exportRow = nullptr;
        for (QAction* a : w.menuBar()->actions().front()->menu()->actions())
            if (a->text() == "Export &row…") exportRow = a;
        QVERIFY(exportRow);
        QTemporaryDir dir;
        const QString path = dir.filePath("row.svg");
        QTimer poll;
        int dialogs = 0;
        QString suggested;
        connect(&poll, &QTimer::timeout, this, [&] {
            QWidget* modal = QApplication::activeModalWidget();
            if (auto* choice = qobject_cast<QInputDialog*>(modal)) {
                ++dialogs;
                choice->setTextValue("output");
                choice->accept();
            } else if (auto* files = qobject_cast<QFileDialog*>(modal)) {
                ++dialogs;
                suggested = files->selectedFiles().join("");
                files->selectFile(path);
                static_cast<QDialog*>(files)->accept();
            }
        });
        poll.start(10);
        exportRow->trigger();
        QCOMPARE(dialogs, 2);
        QVERIFY2(suggested.endsWith("_L0_H0_output_permutation_equivariance.svg"),
                 qPrintable(suggested));
        // The folder chosen holds the figure; its name may be the dialog's suggestion (it lists a
        // folder in the background and may put the suggestion back after selectFile).
        const QStringList written = QDir(dir.path()).entryList(QDir::Files);
        QCOMPARE(written.size(), 1);
        const QByteArray svg = readAll(dir.filePath(written.front()));
        QVERIFY(svg.contains("feature"));
        QVERIFY(!svg.contains("query"));
    }

    // The failing property's witness cells, outlined in the window, are outlined in the figure.
    void witnessCellsAreOutlined() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        w.properties()->select("permutation-equivariance");
        QCoreApplication::processEvents();
        const HeatmapView* shown = w.views()->view(ViewsPanel::Output, ViewsPanel::Original);
        QVERIFY(shown->highlightCount() > 0);
        const Figure figure = viewsFigure(*w.views(), "", "");
        QCOMPARE(figure.panels[3 * ViewsPanel::Output].highlights, shown->highlights());
        QTemporaryDir dir;
        QVERIFY(w.exportFigure(dir.filePath("f.svg")));
        QVERIFY(readAll(dir.filePath("f.svg")).contains("stroke=\"#e6003c\""));
    }

    // The original and transformed maps of every row are drawn over the same range, which holds
    // both; the default scenario's maps differ, so separate ranges would not be equal.
    void originalAndTransformedShareOneRange() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        const Figure figure = viewsFigure(*w.views(), "", "");
        bool someDiffer = false;
        for (int r = 0; r < 3; ++r) {
            const FigurePanel &a = figure.panels[std::size_t(3 * r)],
                              &b = figure.panels[std::size_t(3 * r + 1)];
            QCOMPARE(a.range.lo, b.range.lo);
            QCOMPARE(a.range.hi, b.range.hi);
            for (const FigurePanel* p : {&a, &b}) {
                QVERIFY(a.range.lo <= p->matrix.values.minCoeff());
                QVERIFY(a.range.hi >= p->matrix.values.maxCoeff());
            }
            someDiffer |= a.matrix.values.maxCoeff() != b.matrix.values.maxCoeff() ||
                          a.matrix.values.minCoeff() != b.matrix.values.minCoeff();
            QCOMPARE(figure.panels[std::size_t(3 * r + 2)].scale, attnlab::ColourScale::Diverging);
        }
        QVERIFY(someDiffer);
    }

    void valuesAreWrittenInSmallMapsOnly() {
        const QByteArray small = svgOfSquare(8), large = svgOfSquare(20);
        QVERIFY(small.contains(">63.5<"));
        QVERIFY(!large.contains(">63.5<"));
        QVERIFY(large.count("<rect") + large.count("<path") >= 400);
        // Above kFigureCellsUpTo a side, the pooled cells are drawn, still as vector shapes.
        const QByteArray pooled = svgOfSquare(200);
        const qsizetype shapes = pooled.count("<rect") + pooled.count("<path");
        QVERIFY2(shapes >= 100 * 100 && shapes < 101 * 101, qPrintable(QString::number(shapes)));
        QVERIFY(!pooled.contains("<image"));
    }

    void refusalsWriteNothing() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        const QString bmp = dir.filePath("figure.bmp");
        Answerer yes(QMessageBox::Yes);
        QVERIFY(!w.exportFigure(bmp));
        QVERIFY(w.errorText().contains(bmp));
        QVERIFY(w.errorText().contains("unknown image format"));
        const QString nowhere = dir.filePath("no/such/dir/figure.png");
        QVERIFY(!w.exportFigure(nowhere));
        QVERIFY(w.errorText().contains(nowhere));
        QVERIFY(
            QDir(dir.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot).isEmpty());
        // An existing file of an unknown format: refused without a question, left as it was.
        QFile old(bmp);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("bmp");
        old.close();
        QVERIFY(!w.exportFigure(bmp));
        QCOMPARE(yes.asked, 0);
        QCOMPARE(readAll(bmp), QByteArray("bmp"));
    }

    void replacingAFileAsks() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        const QString path = dir.filePath("f.svg");
        {
            QFile old(path);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("old");
        }
        {
            Answerer no(QMessageBox::No);
            QVERIFY(!w.exportFigure(path));
            QCOMPARE(no.asked, 1);
        }
        QCOMPARE(readAll(path), QByteArray("old"));
        Answerer yes(QMessageBox::Yes);
        QVERIFY(w.exportFigure(path));
        QCOMPARE(yes.asked, 1);
        QVERIFY(readAll(path).contains("<svg"));
    }

    // "Export views" writes one file per view, named with scenario, layer and head; when some of
    // them exist it asks once, and "No" leaves the directory as it was.
    void exportingAllViewsAsksBeforeReplacing() {
        MainWindow w;
        w.show();
        QVERIFY(waitForIdle(w));
        QTemporaryDir dir;
        w.exportViews(dir.path(), "svg");
        const QStringList names = QDir(dir.path()).entryList(QDir::Files);
        QCOMPARE(names.size(), 12); // 3 x 3, dependency, bound, their difference
        const QString stem = figureStem(scenarioName(w), 0, 0);
        for (const QString& name : names)
            QVERIFY2(name.startsWith(stem + "_"), qPrintable(name));
        const QString first = dir.filePath(names.front());
        {
            QFile f(first);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("mine");
        }
        {
            Answerer no(QMessageBox::No);
            w.exportViews(dir.path(), "svg");
            QCOMPARE(no.asked, 1);
        }
        QCOMPARE(readAll(first), QByteArray("mine"));
        Answerer yes(QMessageBox::Yes);
        w.exportViews(dir.path(), "svg");
        QCOMPARE(yes.asked, 1);
        QVERIFY(readAll(first).contains("<svg"));
    }
};

QTEST_MAIN(TestUiFigureExport)
#include "test_ui_figure_export.moc"
