// SPDX-License-Identifier: GPL-3.0-or-later
// Heatmaps that tell the truth and can be read: a stale map is veiled until its caller says it is
// current.
#include "ui/panels/views_panel.h"
#include "ui/views/figure.h"
#include "ui/views/heatmap_view.h"
#include "ui_support.h"

#include <QAction>
#include <QRegularExpression>
#include <QTabWidget>

#include <QTest>

using attnlab::ViewMatrix;
using namespace attnlab::ui;

namespace {

ViewMatrix ramp(int rows, int columns) {
    ViewMatrix m;
    m.values.resize(rows, columns);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
            m.values(i, j) = i - 0.5 * j;
    return m;
}

/// The view as it is painted now, after the replots it asked for.
QImage painted(HeatmapView& view) {
    QCoreApplication::processEvents();
    return view.grab().toImage();
}

} // namespace

class TestUiMaps : public QObject {
    Q_OBJECT
private slots:
    // setStale veils the map (other pixels, "computing…" across it); a new matrix keeps the veil;
    // setStale(false) gives back the picture as it was.
    void aStaleMapIsVeiledUntilItsCallerLiftsIt() {
        for (const bool presentation : {false, true}) {
            HeatmapView view("weights", HeatmapView::Scale::Sequential);
            view.setPresentation(presentation);
            view.resize(360, 300);
            view.setMatrix(ramp(6, 6));
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            const QImage current = painted(view);
            QVERIFY(!view.isStale());
            view.setStale(true);
            QVERIFY(view.isStale());
            const QImage veiled = painted(view);
            QVERIFY(veiled != current);
            view.setMatrix(ramp(6, 5));
            QVERIFY(view.isStale());
            view.setMatrix(ramp(6, 6));
            view.setStale(false);
            QVERIFY(!view.isStale());
            QCOMPARE(painted(view), current);
        }
    }

    // In presentation mode on a 1280 x 720 projector every title and colour-bar caption of the
    // side-by-side maps shows whole, and numbers in cells are written at 14 px or not at all: the
    // output maps of rope-shift (6 x 4) carry theirs.
    void presentationAt1280ShowsWholeTitlesAndReadableNumbers() {
        MainWindow w;
        QVERIFY(showAt1280(w, "builtin:rope-shift"));
        w.findChild<QAction*>("presentation")->trigger();
        QTest::qWait(100);
        ViewsPanel* views = w.views();
        for (HeatmapView* v : views->allViews()) {
            if (!v->isVisible()) continue;
            QVERIFY2(!v->titleElided(), qPrintable(v->title()));
            QVERIFY2(!v->colourLabelElided(), qPrintable(v->title()));
            if (!v->cellNumber(0, 0).isEmpty())
                QVERIFY2(QFontInfo(v->cellNumberFont()).pixelSize() >= 14, qPrintable(v->title()));
        }
        for (const auto column : {ViewsPanel::Original, ViewsPanel::Transformed}) {
            HeatmapView* output = views->view(ViewsPanel::Output, column);
            QCOMPARE(output->matrix().values.rows(), 6);
            QVERIFY(!output->cellNumber(0, 0).isEmpty());
        }
    }

    // The Dependencies page of a 12-token window with a stray cell at 1280 x 720: square cells,
    // the claimed radius 2 outlined on every map, whole titles, and the summary says the claimed
    // and the measured radius (so that "exactly 0" beside "fails" is explained).
    void theDependencyPageDrawsSquareCellsAndTheClaimedBand() {
        MainWindow w;
        QVERIFY(showAt1280(w, "builtin:window-stray-cell"));
        ViewsPanel* views = w.views();
        views->tabs()->setCurrentIndex(1);
        QTest::qWait(100);
        for (HeatmapView* v : {views->dependencyView(), views->boundView(), views->excessView()}) {
            QCOMPARE(v->matrix().values.rows(), 12);
            QCOMPARE(v->matrix().values.cols(), 12);
            const QRect cells = v->plot()->axisRect()->rect();
            QVERIFY2(std::abs(cells.width() - cells.height()) <= 3,
                     qPrintable(QString("%1 x %2").arg(cells.width()).arg(cells.height())));
            QVERIFY(cells.width() >= 12 * 10); // cells of 10 px at least
            QCOMPARE(v->bandRadius(), std::optional<int>(2));
            QVERIFY2(!v->titleElided(), qPrintable(v->title()));
        }
        QVERIFY(views->dependencySummary().contains("Claimed radius 2"));
        QVERIFY(views->dependencySummary().contains("measured radius 7"));
    }

    // A 4,096-token map (pooled, as the views draw it) in a narrow slot: its index labels do not
    // run into each other ("0100020003000").
    void theTickLabelsOfALargeMapDoNotOverlap() {
        HeatmapView view("weights", HeatmapView::Scale::Sequential);
        view.resize(180, 300);
        ViewMatrix m = ramp(256, 256);
        m.rowBlock = m.colBlock = 16;
        view.setMatrix(m);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot();
        QCPAxis* x = view.plot()->xAxis;
        const QVector<double> ticks = x->tickVector();
        const QVector<QString> labels = x->tickVectorLabels();
        QVERIFY(ticks.size() >= 2);
        const QFontMetricsF metrics(x->tickLabelFont());
        for (int i = 1; i < ticks.size(); ++i) {
            const double gap = x->coordToPixel(ticks[i]) - x->coordToPixel(ticks[i - 1]);
            const double room =
                (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) /
                2;
            QVERIFY2(gap > room + 2, qPrintable(labels[i - 1] + " " + labels[i]));
        }
    }

    // An exported SVG figure of a masked map with small cells: the masked cells in grey, and
    // every cell reaches under its right neighbour (no antialiased seam between them).
    void anExportedFigureHasGreyMaskedCellsAndNoSeams() {
        FigurePanel panel;
        panel.title = "A  f(X)";
        panel.matrix = ramp(40, 40);
        panel.range = {-20, 40};
        panel.mask = attnlab::BoolMatrix::Constant(40, 40, true);
        panel.mask(0, 1) = false;
        Figure figure;
        figure.title = "masked";
        figure.columns = 1;
        figure.panels = {panel};
        const QString svg = QString::fromUtf8(figureFile(figure, "figure.svg"));
        QVERIFY(svg.contains("#d0d0d0", Qt::CaseInsensitive)); // the masked cell's grey
        // The cells of the first row: x and width of each rectangle of the cells' height.
        const QRegularExpression rect(
            R"re(<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)")re");
        QList<std::pair<double, double>> row;
        double top = -1;
        for (const auto& match : rect.globalMatch(svg)) {
            const double y = match.captured(2).toDouble(), w = match.captured(3).toDouble();
            if (w > 15) continue; // the background, the frame, the colour bar
            if (top < 0) top = y;
            if (y == top) row.append({match.captured(1).toDouble(), w});
        }
        QVERIFY2(row.size() == 40, qPrintable(QString::number(row.size())));
        for (int i = 0; i + 1 < row.size(); ++i)
            QVERIFY(row[i].first + row[i].second > row[i + 1].first);
    }
};

QTEST_MAIN(TestUiMaps)
#include "test_ui_maps.moc"
