// attnlab-ui-bench: how fast the explorer answers, measured in one run (never a test verdict).
//  - edit to views and verdicts at n = 256: a token edit through the document until the worker
//    has delivered the new views and every automatic verdict;
//  - a heatmap update at n = 4096: pooling a 4096 x 4096 map to the view limit and redrawing it.
// Prints the median and minimum of each over --repeat runs after --warmup, as JSON.
#include "allocator_tuning.h"
#include "compute_service.h"
#include "heatmap_view.h"
#include "main_window.h"
#include "scenario_document.h"
#include "scenario_json.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace attnlab;

namespace {

struct Timing {
    double median, min;
};

template <class F>
Timing measure(int warmup, int repeat, F&& once) {
    for (int i = 0; i < warmup; ++i)
        once();
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
        QElapsedTimer t;
        t.start();
        once();
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front()};
}

Scenario scenarioAt(int n) {
    Scenario s = loadScenario("builtin:flash-tiling-float32");
    s.tokens = TokenSpec::given(TokenSpec::random(n, 32, 5).materialize<Rational>());
    s.model.layers[0].mixer.tile = 0;
    return s;
}

} // namespace

int main(int argc, char** argv) {
    attnlab::keepFreedMemoryForReuse(); // as the explorer does
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto option = [&](const QString& name, int fallback) {
        const int i = int(args.indexOf(name));
        return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
    };
    const int repeat = option("--repeat", 15), warmup = option("--warmup", 3);

    MainWindow window;
    window.resize(1600, 950);
    window.show();
    Scenario s = scenarioAt(256);
    window.document()->reset(s, QString());
    QSignalSpy idle(window.compute(), &ComputeService::idle);
    idle.wait(60000);
    int step = 0;
    const Timing edit = measure(warmup, repeat, [&] {
        Scenario next = window.document()->scenario();
        next.tokens.values(0, 0) = Rational(++step, 7);
        window.document()->editScenario(next, "bench edit");
        idle.wait(60000);
        QCoreApplication::processEvents(); // the views draw what arrived
    });

    HeatmapView heatmap("4096 x 4096", HeatmapView::Scale::Sequential);
    heatmap.resize(600, 500);
    heatmap.show();
    const Eigen::MatrixXd big = Eigen::MatrixXd::Random(4096, 4096);
    const Timing map = measure(warmup, repeat, [&] {
        heatmap.setMatrix(view<double>(big));
        heatmap.plot()->replot(QCustomPlot::rpImmediateRefresh);
    });
    // Its parts: pooling in the core, filling the colour map, drawing it.
    ViewMatrix pooledBig;
    const Timing pool = measure(warmup, repeat, [&] { pooledBig = view<double>(big); });
    const Timing fill = measure(warmup, repeat, [&] { heatmap.setMatrix(pooledBig); });
    const Timing draw =
        measure(warmup, repeat, [&] { heatmap.plot()->replot(QCustomPlot::rpImmediateRefresh); });

    std::printf("{\"edit_to_verdict_n256_ms\": {\"median\": %.2f, \"min\": %.2f, \"target\": 50},\n"
                " \"heatmap_update_n4096_ms\": {\"median\": %.2f, \"min\": %.2f, \"target\": 50,\n"
                "   \"pool_median\": %.2f, \"fill_median\": %.2f, \"draw_median\": %.2f},\n"
                " \"repeat\": %d, \"warmup\": %d}\n",
                edit.median, edit.min, map.median, map.min, pool.median, fill.median, draw.median,
                repeat, warmup);
    return 0;
}
