// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapView: draws a matrix cell for cell, shows exact values in tooltips, pools large maps
// keeping their peaks, shrinks a long title to a narrow map, outlines witness cells, overlays
// masks, and exports non-empty PNG, SVG, PDF.
#include "ui/views/heatmap_view.h"
#include "ui/views/view_export.h"

#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

using attnlab::ViewMatrix;
using namespace attnlab::ui;

namespace {

ViewMatrix sample() {
    ViewMatrix m;
    m.values.resize(2, 3);
    m.values << 1, 0.5, 1, 14.0 / 9, 7.0 / 9, 1;
    m.exactText = {"1", "1/2", "1", "14/9", "7/9", "1"};
    return m;
}

QCPColorMap* colorMap(HeatmapView& view) {
    return qobject_cast<QCPColorMap*>(view.plot()->plottable(0));
}

} // namespace

class TestUiHeatmap : public QObject {
    Q_OBJECT
private slots:
    void drawsEveryCellWithRowZeroAtTheTop() {
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.setMatrix(sample());
        QCPColorMap* map = colorMap(view);
        QCOMPARE(map->data()->keySize(), 3);
        QCOMPARE(map->data()->valueSize(), 2);
        QCOMPARE(map->data()->cell(0, 1), 14.0 / 9); // column 0, row 1
        QVERIFY(!map->interpolate());
        QVERIFY(view.plot()->yAxis->rangeReversed());
        QCOMPARE(map->dataRange().lower, 0.5);
        QCOMPARE(map->dataRange().upper, 14.0 / 9);
    }

    void tooltipShowsTheExactValue() {
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.setMatrix(sample());
        QCOMPARE(view.cellText(1, 0), QString("[1, 0] = 14/9"));
        QCOMPARE(view.cellText(5, 0), QString());
    }

    // An edit that leaves a view's matrix as it was (a zero difference) costs no redraw; any
    // change of a value, an exact text or the mask overlay does.
    void redrawsOnlyWhatChanged() {
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.resize(300, 250);
        view.show();
        int replots = 0;
        connect(view.plot(), &QCustomPlot::afterReplot, this, [&] { ++replots; });
        auto settle = [&] {
            replots = 0;
            QCoreApplication::processEvents();
            return replots;
        };
        view.setMatrix(sample());
        QVERIFY(settle() > 0);
        view.setMatrix(sample());
        QCOMPARE(settle(), 0);
        ViewMatrix text = sample();
        text.exactText[1] = "2/4"; // same value, other text: the tooltip changes
        view.setMatrix(text);
        QVERIFY(settle() > 0);
        ViewMatrix moved = sample();
        moved.values(1, 2) = 2;
        view.setMatrix(moved);
        QVERIFY(settle() > 0);
        QCOMPARE(colorMap(view)->data()->cell(2, 1), 2.0);
        const attnlab::BoolMatrix mask = attnlab::BoolMatrix::Constant(2, 3, true);
        view.setMaskOverlay(mask);
        QVERIFY(settle() > 0);
        view.setMaskOverlay(mask);
        QCOMPARE(settle(), 0);
    }

    // A view on a hidden tab draws nothing on an edit (every edit replotted the hidden views
    // too), and draws what changed, at once, when it is shown.
    void hiddenViewRedrawsWhenShown() {
        QWidget page;
        auto* view = new HeatmapView("weights", HeatmapView::Scale::Sequential, &page);
        view->resize(300, 250);
        QCoreApplication::processEvents(); // the replot QCustomPlot queues when it is made
        int replots = 0;
        connect(view->plot(), &QCustomPlot::afterReplot, this, [&] { ++replots; });
        view->setMatrix(sample());
        QCoreApplication::processEvents();
        QCOMPARE(replots, 0); // the page was never shown
        page.show();          // the first show also resizes the plot, which replots it too
        QVERIFY(replots > 0);
        QCoreApplication::processEvents();
        page.hide();
        replots = 0;
        ViewMatrix moved = sample();
        moved.values(1, 2) = 2;
        view->setMatrix(moved);
        QCoreApplication::processEvents();
        QCOMPARE(replots, 0);
        page.show(); // drawn in the show event, before the first paint
        QCOMPARE(replots, 1);
        QCOMPARE(colorMap(*view)->data()->cell(2, 1), 2.0);
    }

    void divergingScaleIsCentredOnZero() {
        HeatmapView view("difference", HeatmapView::Scale::Diverging);
        ViewMatrix m;
        m.values = Eigen::MatrixXd{{-0.25, 0.5}};
        view.setMatrix(m);
        QCOMPARE(colorMap(view)->dataRange().lower, -0.5);
        QCOMPARE(colorMap(view)->dataRange().upper, 0.5);
    }

    void pooledMatrixKeepsTokenAxesAndNamesTheBlock() {
        HeatmapView view("big", HeatmapView::Scale::Sequential);
        ViewMatrix m;
        m.values = Eigen::MatrixXd::Zero(2, 2);
        m.values(1, 0) = 9;
        m.rowBlock = m.colBlock = 4; // stands for 8 x 8 tokens
        view.setMatrix(m);
        QCOMPARE(view.plot()->xAxis->range().upper, 7.5);
        QVERIFY(view.cellText(5, 2).contains("rows 4–7, columns 0–3"));
        QVERIFY(view.cellText(5, 2).contains("9"));
    }

    void aMapLargerThanThePlotKeepsItsThinBand() {
        // A 2048 x 2048 band of width 3 on a plot a few hundred pixels wide: every drawn cell
        // on the diagonal must still show the band (drawing every entry would drop most of it).
        HeatmapView view("band", HeatmapView::Scale::Sequential);
        view.resize(420, 360);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        ViewMatrix m;
        m.values = Eigen::MatrixXd::Zero(2048, 2048);
        for (int i = 0; i < 2048; ++i)
            for (int j = std::max(0, i - 1); j <= std::min(2047, i + 1); ++j)
                m.values(i, j) = 1;
        view.setMatrix(m);
        QCPColorMapData* data = colorMap(view)->data();
        const QRect area = view.plot()->axisRect()->rect();
        QVERIFY(data->keySize() <= area.width() && data->valueSize() <= area.height());
        QVERIFY(data->keySize() > 100);
        for (int c = 0; c < data->keySize(); ++c) {
            double key = 0, value = 0;
            data->cellToCoord(c, 0, &key, &value);
            int row = 0, col = 0; // the drawn cell holding token (key, key)
            data->coordToCell(key, key, &col, &row);
            QCOMPARE(data->cell(col, row), 1.0);
        }
        QCOMPARE(data->cell(data->keySize() - 1, 0), 0.0); // far from the band
        // Resized wider, it pools less.
        const int before = data->keySize();
        view.resize(900, 360);
        QApplication::processEvents();
        QVERIFY(colorMap(view)->data()->keySize() > before);
    }

    void aSingleColumnIsDrawn() {
        // QCustomPlot sizes cells by the distance between their centres: a 6 x 1 map (RoPE's one
        // pair, an output of width 1) must still be coloured, not left blank.
        HeatmapView view("one column", HeatmapView::Scale::Sequential);
        view.setNumbers(HeatmapView::Numbers::Off); // the cells' centres are sampled
        view.resize(300, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        ViewMatrix m;
        m.values = (Eigen::MatrixXd(6, 1) << 0, 1, 2, 3, 4, 5).finished();
        view.setMatrix(m);
        view.plot()->replot();
        const QImage image = view.plot()->toPixmap().toImage();
        const QPoint top(int(view.plot()->xAxis->coordToPixel(0)),
                         int(view.plot()->yAxis->coordToPixel(0)));
        const QPoint bottom(top.x(), int(view.plot()->yAxis->coordToPixel(5)));
        QCOMPARE(image.pixelColor(top), view.cellColour(0, 0));
        QCOMPARE(image.pixelColor(bottom), view.cellColour(5, 0));
        QVERIFY(view.cellColour(0, 0) != view.cellColour(5, 0));
    }

    void aLongTitleShrinksToFitANarrowMap() {
        // The difference column's title of a layer at 1280 px: smaller, but whole; the plot below
        // keeps the room a title of the normal size leaves, so that it lines up with its
        // neighbours.
        const QString title = "layer output  f(P X) − P f(X)";
        HeatmapView wide(title, HeatmapView::Scale::Diverging);
        HeatmapView narrow(title, HeatmapView::Scale::Diverging);
        const auto show = [](HeatmapView& view, int width) {
            view.resize(width, 240);
            view.setMatrix(sample());
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            view.plot()->replot();
        };
        show(wide, 400);
        show(narrow, 180);
        auto* shown = qobject_cast<QCPTextElement*>(narrow.plot()->plotLayout()->element(0, 0));
        QVERIFY(shown);
        QCOMPARE(shown->text(), title);
        QVERIFY(narrow.titleFont().pointSizeF() < wide.titleFont().pointSizeF());
        QCOMPARE(narrow.plot()->axisRect()->top(), wide.plot()->axisRect()->top());
    }

    void outlinesWitnessCellsAndOverlaysTheMask() {
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.setMatrix(sample());
        const int others = view.plot()->itemCount(); // the hidden message across the plot
        view.setHighlights({QPoint(1, 0)});
        QCOMPARE(view.highlightCount(), 1);
        QCOMPARE(view.plot()->itemCount(), others + 1);
        view.setHighlights({});
        QCOMPARE(view.plot()->itemCount(), others);
        attnlab::BoolMatrix mask(2, 3);
        mask << true, false, false, true, true, false;
        view.setMaskOverlay(mask);
        auto* overlay = qobject_cast<QCPColorMap*>(view.plot()->plottable(1));
        QVERIFY(overlay->visible());
        QCOMPARE(overlay->data()->cell(1, 0), 1.0); // row 0, column 1 is masked
        QCOMPARE(overlay->data()->cell(0, 0), 0.0);
    }

    void exportsNonEmptyImages_data() {
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<QByteArray>("magic");
        QTest::newRow("png") << "png" << QByteArray("\x89PNG");
        QTest::newRow("svg") << "svg" << QByteArray("<?xml");
        QTest::newRow("pdf") << "pdf" << QByteArray("%PDF");
    }
    void exportsNonEmptyImages() {
        QFETCH(QString, suffix);
        QFETCH(QByteArray, magic);
        QTemporaryDir dir;
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.resize(400, 300);
        view.setMatrix(sample());
        const QString path = dir.filePath("view." + suffix);
        exportHeatmap(&view, path);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY2(bytes.size() > 500, qPrintable(QString::number(bytes.size())));
        QVERIFY(bytes.startsWith(magic));
        if (suffix == "svg") QVERIFY(bytes.contains("<svg"));
    }

    void exportsTheMatrixAsCsvAndNpy() {
        QTemporaryDir dir;
        exportMatrix(sample(), dir.filePath("m.csv"));
        QFile csv(dir.filePath("m.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readLine().trimmed(), QByteArray("1,0.5,1"));
        exportMatrix(sample(), dir.filePath("m.npy"));
        QFile npy(dir.filePath("m.npy"));
        QVERIFY(npy.open(QIODevice::ReadOnly));
        QVERIFY(npy.readAll().startsWith("\x93NUMPY"));
    }
};

QTEST_MAIN(TestUiHeatmap)
#include "test_ui_heatmap.moc"
