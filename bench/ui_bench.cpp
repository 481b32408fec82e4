// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-ui-bench: how fast the explorer answers, measured in one run (never a test verdict).
//  - edit to views and verdicts at n = 256: a token edit through the document until the worker
//    has delivered the new views and every automatic verdict;
//  - a heatmap update at n = 4096: pooling a 4096 x 4096 map to the view limit and redrawing it.
// Prints the median and minimum of each over --repeat runs after --warmup, as JSON, with the median
// time at which the edit was accepted and the views and each verdict reached the GUI thread, and
// the processor time an edit costs: on the GUI thread and in the whole process (all threads).
// --edit-only measures the edit alone (for a profiler).
#include "core/base/process_tuning.h"
#include "core/io/scenario_reader.h"
#include "timing.h"
#include "ui/document/compute_service.h"
#include "ui/document/scenario_document.h"
#include "ui/main_window.h"
#include "ui/views/heatmap_view.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>

#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace attnlab;
using namespace attnlab::ui;

namespace {

// Milliseconds as JSON text, to a hundredth.
std::string hundredths(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", ms);
    return text;
}

// The median of what was recorded after the first `skip` (warm-up) runs, as text.
std::string medianAfter(std::vector<double> values, int skip) {
    values.erase(values.begin(), values.begin() + std::min<long>(skip, long(values.size())));
    if (values.empty()) return "null";
    return hundredths(summarise(std::move(values)).median);
}

// Processor time of a clock (CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID) in milliseconds.
double cpuMs(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

Scenario scenarioAt(int n) {
    Scenario s = loadScenario("builtin:flash-tiling-float32");
    s.tokens = TokenSpec::given(TokenSpec::random(n, 32, 5).materialize<Rational>());
    s.model.layers[0].mixer.tile = 0;
    return s;
}

} // namespace

int main(int argc, char** argv) {
    attnlab::restartWithIdleThreadsSleeping(argv); // as the explorer does
    attnlab::keepFreedMemoryForReuse();
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
    // When each part of an edit's answer reached the GUI thread, from the start of the edit.
    QElapsedTimer sinceEdit;
    std::vector<double> edited, viewsAt, guiCpu, processCpu;
    std::vector<std::vector<double>> verdictsAt; // [check][edit]
    QStringList names;
    QObject::connect(window.compute(), &ComputeService::viewsReady,
                     [&] { viewsAt.push_back(double(sinceEdit.nsecsElapsed()) / 1e6); });
    QObject::connect(
        window.compute(), &ComputeService::checkReady, [&](int i, const PropertyReport& r) {
            if (verdictsAt.size() <= std::size_t(i)) verdictsAt.resize(i + 1);
            verdictsAt[std::size_t(i)].push_back(double(sinceEdit.nsecsElapsed()) / 1e6);
            if (names.size() <= i) names.resize(i + 1);
            names[i] = QString::fromStdString(r.name);
        });
    const Timing edit = measure(warmup, repeat, [&] {
        const double gui0 = cpuMs(CLOCK_THREAD_CPUTIME_ID), all0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
        sinceEdit.start();
        Scenario next = window.document()->scenario();
        next.tokens.values(0, 0) = Rational(++step, 7);
        window.document()->editScenario(std::move(next), "bench edit");
        edited.push_back(double(sinceEdit.nsecsElapsed()) / 1e6);
        idle.wait(60000);
        QCoreApplication::processEvents(); // the views draw what arrived
        guiCpu.push_back(cpuMs(CLOCK_THREAD_CPUTIME_ID) - gui0);
        processCpu.push_back(cpuMs(CLOCK_PROCESS_CPUTIME_ID) - all0);
    });
    std::string phases = "{\"document_edit\": " + medianAfter(edited, warmup) +
                         ", \"views\": " + medianAfter(viewsAt, warmup);
    for (std::size_t i = 0; i < verdictsAt.size(); ++i)
        phases +=
            ", \"" + names[int(i)].toStdString() + "\": " + medianAfter(verdictsAt[i], warmup);
    phases += "}";
    const std::string editJson =
        "{\"median\": " + hundredths(edit.median) + ", \"min\": " + hundredths(edit.min) +
        ", \"target\": 50,\n   \"arrived_median\": " + phases +
        ",\n   \"cpu_median\": {\"gui_thread\": " + medianAfter(guiCpu, warmup) +
        ", \"process\": " + medianAfter(processCpu, warmup) + "}}";
    if (args.contains("--edit-only")) {
        std::printf("{\"edit_to_verdict_n256_ms\": %s,\n \"repeat\": %d, \"warmup\": %d}\n",
                    editJson.c_str(), repeat, warmup);
        return 0;
    }

    HeatmapView heatmap("4096 x 4096", HeatmapView::Scale::Sequential);
    heatmap.resize(600, 500);
    heatmap.show();
    // Two maps in turn: a view given the matrix it shows already does nothing.
    const Eigen::MatrixXd big[2] = {Eigen::MatrixXd::Random(4096, 4096),
                                    Eigen::MatrixXd::Random(4096, 4096)};
    int turn = 0;
    const Timing map = measure(warmup, repeat, [&] {
        heatmap.setMatrix(view<double>(big[++turn % 2]));
        heatmap.plot()->replot(QCustomPlot::rpImmediateRefresh);
    });
    // Its parts: pooling in the core, filling the colour map, drawing it.
    ViewMatrix pooledBig[2];
    const Timing pool = measure(warmup, repeat, [&] {
        ++turn;
        pooledBig[turn % 2] = view<double>(big[turn % 2]);
    });
    const Timing fill = measure(warmup, repeat, [&] { heatmap.setMatrix(pooledBig[++turn % 2]); });
    const Timing draw =
        measure(warmup, repeat, [&] { heatmap.plot()->replot(QCustomPlot::rpImmediateRefresh); });

    std::printf("{\"edit_to_verdict_n256_ms\": %s,\n"
                " \"heatmap_update_n4096_ms\": {\"median\": %.2f, \"min\": %.2f, \"target\": 50,\n"
                "   \"pool_median\": %.2f, \"fill_median\": %.2f, \"draw_median\": %.2f},\n"
                " \"repeat\": %d, \"warmup\": %d}\n",
                editJson.c_str(), map.median, map.min, pool.median, fill.median, draw.median,
                repeat, warmup);
    return 0;
}
