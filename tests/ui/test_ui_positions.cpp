// SPDX-License-Identifier: GPL-3.0-or-later
// The Positions page through the window: it draws the shown head's positional term (ALiBi's
// bias for builtin:alibi-causal, RoPE's angles for builtin:rope-shift) and one query row's
// scores against t − s, following the head and the row chosen.
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui/views/positional_page.h"
#include "ui_support.h"

#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>

#include <qcustomplot.h>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

PositionalPage* openPositions(MainWindow& w, const QString& source) {
    w.show();
    if (!w.openSource(source) || !waitForIdle(w)) return nullptr;
    PositionalPage* page = w.views()->positions();
    w.views()->tabs()->setCurrentWidget(page);
    return page;
}

// The data of the highlighted row's curve (drawn last).
QVector<double> highlightedKeys(PositionalPage* page) {
    QCustomPlot* plot = page->curves();
    QVector<double> keys;
    const auto data = plot->graph(plot->graphCount() - 1)->data();
    for (auto it = data->constBegin(); it != data->constEnd(); ++it)
        keys << it->key;
    return keys;
}

} // namespace

class TestUiPositions : public QObject {
    Q_OBJECT
private slots:
    void alibiShowsItsBiasAndTheCausalOffsets() {
        MainWindow w;
        PositionalPage* page = openPositions(w, "builtin:alibi-causal");
        QVERIFY(page);
        QVERIFY2(page->term()->title().contains("ALiBi"), qPrintable(page->term()->title()));
        const Eigen::MatrixXd& bias = page->term()->matrix().values;
        QCOMPARE(bias.rows(), 5);
        QCOMPARE(bias(3, 1), bias(4, 2)); // constant along a diagonal
        QVERIFY(bias(4, 0) < bias(4, 3));
        // Causal: the last query reads keys 0..4, offsets -4..0.
        page->rowBox()->setValue(4);
        QCOMPARE(highlightedKeys(page), (QVector<double>{-4, -3, -2, -1, 0}));
        page->rowBox()->setValue(1);
        QCOMPARE(highlightedKeys(page), (QVector<double>{-1, 0}));
        QVERIFY(page->curves()->graphCount() > 1); // the other rows, faintly
    }

    void ropeShowsOneColumnPerRotatedPair() {
        MainWindow w;
        PositionalPage* page = openPositions(w, "builtin:rope-shift");
        QVERIFY(page);
        QVERIFY2(page->term()->title().contains("RoPE"), qPrintable(page->term()->title()));
        QCOMPARE(page->term()->matrix().values.rows(), 6);
        QVERIFY(page->explanation()->text().contains("t − s"));
    }

    void absolutePositionsDrawTheirTable() {
        MainWindow w;
        PositionalPage* page = openPositions(w, "builtin:sinusoidal-positions");
        QVERIFY(page);
        QVERIFY2(page->term()->title().contains("table"), qPrintable(page->term()->title()));
        QVERIFY(page->term()->matrix().values.size() > 0);
    }
};

QTEST_MAIN(TestUiPositions)
#include "test_ui_positions.moc"
