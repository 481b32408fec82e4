// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-check-bench: what each part of the explorer's answer to an edit costs on its own, in
// one run (never a test verdict). On the UI benchmark's scenario (n = 256, d = 32, one causal
// softmax layer in float32; --n changes n) it times the side-by-side views and each of the
// scenario's checks (and the layer x head overview the explorer draws between them), and prints the
// median and minimum of --repeat runs after --warmup, with the threads used, as JSON.
// OMP_NUM_THREADS=1 gives the work of each on one thread; --backend B computes on B (cuda:0);
// --only NAME times that check alone (for a profiler).
#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/base/parallel.h"
#include "core/base/process_tuning.h"
#include "core/checks/check_registry.h"
#include "core/explore/head_overview.h"
#include "core/explore/side_by_side.h"
#include "core/io/scenario_reader.h"
#include "timing.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace attnlab;

int main(int argc, char** argv) {
    keepFreedMemoryForReuse(); // as the explorer does
    auto option = [&](const char* name, int fallback) {
        for (int i = 1; i + 1 < argc; ++i)
            if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
        return fallback;
    };
    const int n = option("--n", 256), repeat = std::max(1, option("--repeat", 15)),
              warmup = option("--warmup", 3);
    std::string backend = "auto", only; // --only NAME: that check alone (for a profiler)
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--backend") == 0) backend = argv[i + 1];
        if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
    }
    // The scenario of attnlab-ui-bench's edit.
    Scenario s = loadScenario("builtin:flash-tiling-float32");
    s.tokens = TokenSpec::given(TokenSpec::random(n, 32, 5).materialize<Rational>());
    s.model.layers[0].mixer.tile = 0;
    try {
        s.backend = parseBackendChoice(backend);
        requireSelectable(s.backend);
    } catch (const InputError& e) {
        std::fprintf(stderr, "attnlab-check-bench: %s\n", e.what());
        return 2;
    }

    std::string parts;
    auto report = [&](const std::string& name, const Timing& t) {
        char line[160];
        std::snprintf(line, sizeof line, "%s\n   \"%s\": {\"median\": %.2f, \"min\": %.2f}",
                      parts.empty() ? "" : ",", name.c_str(), t.median, t.min);
        parts += line;
    };
    if (!only.empty() && std::none_of(s.checks.begin(), s.checks.end(),
                                      [&](const CheckSpec& c) { return c.name == only; })) {
        std::fprintf(stderr, "attnlab-check-bench: --only %s: the scenario has no such check\n",
                     only.c_str());
        return 2;
    }
    if (only.empty()) {
        report("views", measure(warmup, repeat, [&] { compareSides(s, Transform{}); }));
        const SideBySide sides = compareSides(s, Transform{});
        report("overview", measure(warmup, repeat, [&] { headOverview(sides, Side::Original); }));
    }
    for (const CheckSpec& check : s.checks)
        if (only.empty() || check.name == only)
            report(check.name, measure(warmup, repeat, [&] { runChecks(s, {check}, 0); }));
    std::printf("{\"n\": %d, \"backend\": \"%s\", \"threads\": %d, \"repeat\": %d, "
                "\"warmup\": %d, \"ms\": {%s}}\n",
                n, backend.c_str(), kernels::availableThreads(), repeat, warmup, parts.c_str());
    return 0;
}
