// SPDX-License-Identifier: GPL-3.0-or-later
// Heatmaps that tell the truth and can be read: a stale map is veiled until its caller says it is
// current.
#include "ui/views/heatmap_view.h"

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
};

QTEST_MAIN(TestUiMaps)
#include "test_ui_maps.moc"
