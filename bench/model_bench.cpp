// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-model-bench: what opening a Hugging Face checkpoint costs, in one run (never a test
// verdict). For a checkpoint directory and a token count it times, on the wall clock: importing
// (config, index, tensor headers), building the model (every layer's weights read from the
// mapped file and converted), the first views (compareSides, the first head's maps on the three
// sides and every head's thumbnail, as the explorer first draws them) and a forward pass with every
// map kept; then the process's peak resident memory against the checkpoint's size. Prints JSON.
//
//   attnlab-model-bench DIR [--n 256] [--precision float32|float64]
#include "core/base/precision_dispatch.h"
#include "core/base/process_tuning.h"
#include "core/explore/head_overview.h"
#include "core/explore/side_by_side.h"
#include "core/io/hf_import.h"
#include "core/model/model.h"
#include "timing.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

using namespace attnlab;

namespace {
double millisecondsOf(const std::function<void()>& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

double peakResidentMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

// The resident memory now (MiB), from /proc/self/statm.
double residentMiB() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double checkpointMiB(const std::filesystem::path& dir) {
    std::uintmax_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".safetensors") bytes += entry.file_size();
    return double(bytes) / (1024.0 * 1024.0);
}

int run(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: attnlab-model-bench DIR [--n N] [--precision P]\n");
        return 2;
    }
    int n = 256;
    std::string precision = "float32";
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--n") == 0) n = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--precision") == 0) precision = argv[i + 1];
    }
    ImportRequest request;
    request.directory = argv[1];
    for (int i = 0; i < n; ++i)
        request.ids.push_back((i * 7919) % 50000 % 500); // within every fixture's vocabulary
    request.precision = parsePrecision(precision);
    Scenario s;
    const double open = millisecondsOf([&] { s = importScenario(request); });
    SideBySide views;
    const double firstViews = millisecondsOf([&] {
        views = compareSides(s, Transform{});
        for (Side side : {Side::Original, Side::Transformed, Side::Difference})
            (void)views.head(side, 0, 0); // the maps the explorer opens on
        (void)headOverview(views, Side::Original);
    });
    const double afterViews = residentMiB();
    double build = 0, forward = 0, withModel = 0;
    withScalar(s.precision, [&]<class T>() {
        std::optional<Model<T>> model;
        build = millisecondsOf([&] { model.emplace(s.model, s.d()); });
        withModel = residentMiB();
        const Matrix<T> x = s.tokens.materialize<T>();
        forward = measure(1, 3, [&] { (void)model->forward(x, Maps::Keep); }).median;
    });
    std::printf("{\n  \"checkpoint_mib\": %.1f,\n  \"layers\": %zu,\n  \"n\": %d,\n"
                "  \"precision\": \"%s\",\n  \"open_ms\": %.1f,\n  \"first_views_ms\": %.1f,\n"
                "  \"build_model_ms\": %.1f,\n  \"forward_all_maps_ms\": %.1f,\n"
                "  \"resident_after_views_mib\": %.1f,\n  \"resident_with_model_mib\": %.1f,\n"
                "  \"peak_resident_mib\": %.1f\n}\n",
                checkpointMiB(request.directory), s.model.layers.size(), n, precision.c_str(), open,
                firstViews, build, forward, afterViews, withModel, peakResidentMiB());
    return 0;
}
} // namespace

int main(int argc, char** argv) {
    keepFreedMemoryForReuse(); // as the explorer does
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attnlab-model-bench: %s\n", e.what());
        return 1;
    }
}
