// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli bench`: speed of the CPU attention kernel against the machine's measured FMA peak
// (cli.md). Without --n it runs the standard suite; with --n one case. With --backend
// opencl or cuda, an accelerator's layer kernel instead (bench_device.h).
#include "arguments.h"
#include "bench_device.h"
#include "bench_support.h"
#include "commands.h"

#include "core/backend/accelerator.h"
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/peak_probe.h"
#include "core/backend/cpu/pooled_map.h"
#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/base/parallel.h"
#include "core/checks/check_registry.h"
#include "core/checks/property_report.h"
#include "core/model/model.h"
#include "core/spec/matrix_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace attnlab::cli {

std::string benchUsage() {
    return "usage: attnlab-cli bench [--n N] [--d D] [--mixer M] [--mask M] [--precision P]\n"
           "                         [--backend B] [--heads H] [--repeat K] [--warmup K] "
           "[--json]\n\n"
           "Times one attention head (random Q, K, V of n x d) on the fused CPU kernel and prints\n"
           "seconds, GFLOP/s (dense-equivalent 4·n²·d and useful 4·allowed·d) and the fraction of\n"
           "the FMA peak measured in the same run. Without --n: the standard suite (softmax fp32\n"
           "n = 1024, 4096; causal; dense and window:128 at n = 16384; float64; exact at small n;\n"
           "an equivariance sweep of 100 permutations at n = 512; a 4096² map max-pooled to\n"
           "800², and the same pooled map of a head computed from Q and K without the map).\n"
           "Rates are given per wall-clock second and per CPU second (fraction_of_peak_cpu_time:\n"
           "robust when other work shares the machine).\n\n"
           "  --n N            sequence length (one case)\n"
           "  --d D            head width [64]\n"
           "  --mixer M        softmax | softmax_like | raw [softmax]\n"
           "  --mask M         all | causal | window:R | causal_window:R [all]\n"
           "  --precision P    float32 | float64 | exact [float32]\n"
           "  --backend B      auto | cpu [auto]; opencl | cuda | B:I times that device's\n"
           "                   whole-layer kernel instead (TFLOP/s, fraction of the GPU's\n"
           "                   probed peak; its suite without --n; see docs/cli.md)\n"
           "  --heads H        heads of the device's layer [16] (device only)\n"
           "  --repeat K       timed runs, the median is reported [15]\n"
           "  --warmup K       untimed runs first [3]\n"
           "  --query-block Q  kernel query block [128];  --key-block K  key block [128]\n"
           "  --forward        time Model::forward without maps (one layer, identity weights)\n"
           "                   instead of the bare kernel; no float64 error\n"
           "  --skip-probe     no peak probe (peak and fractions null; for scripts timing one "
           "case)\n"
           "  --json           print JSON\n";
}

namespace {

struct Case {
    int n = 1024, d = 64;
    MixerSpec::Kind mixer = MixerSpec::Kind::Softmax;
    std::string mask = "all";
    Precision precision = Precision::Float32;
    int repeat = 15, warmup = 3;
    bool forward = false; // time Model::forward without maps instead of the bare kernel
    kernels::KernelTiles tiles;
};

MixerSpec::Kind parseMixer(const std::string& text) {
    for (auto k : {MixerSpec::Kind::Softmax, MixerSpec::Kind::SoftmaxLike, MixerSpec::Kind::Raw})
        if (mixerKindName(k) == text) return k;
    throw UsageError("--mixer must be softmax, softmax_like or raw, got '" + text + "'");
}

template <class T>
std::vector<Matrix<T>> inputs(const Case& c) {
    std::vector<Matrix<T>> qkv;
    for (std::uint64_t seed : {11, 12, 13})
        qkv.push_back(MatrixSpec::random(seed).materialize<T>(c.n, c.d));
    return qkv;
}

template <class T>
Matrix<T> runKernel(const Case& c, const std::vector<Matrix<T>>& qkv) {
    MixerSpec mixer;
    mixer.kind = c.mixer;
    const std::vector<kernels::HeadInputs<T>> heads{{&qkv[0], &qkv[1], &qkv[2], std::nullopt}};
    return std::move(
        kernels::fusedAttention<T>(mixer, parseBenchMask(c.mask), heads, c.tiles).outputs[0]);
}

// The float64 output the errors are measured against: the reference mixer (weights·V, an
// implementation independent of the kernel) up to n = 4096, the kernel in float64 beyond.
Matrix<double> float64Reference(const Case& c, const std::vector<Matrix<double>>& qkv) {
    if (c.n > 4096) return runKernel<double>(c, qkv);
    MixerSpec mixer;
    mixer.kind = c.mixer;
    return attendHead<double>(mixer, qkv[0], qkv[1], qkv[2], nullptr,
                              buildMask(parseBenchMask(c.mask), c.n))
        .output;
}

nlohmann::json caseJson(const Case& c, const Timing& t, const PeakRate& peak) {
    const long long allowed = kernels::allowedEntries(parseBenchMask(c.mask), c.n);
    const double dense = 4.0 * double(c.n) * double(c.n) * c.d / 1e9;
    const double useful = 4.0 * double(allowed) * c.d / 1e9;
    nlohmann::json j = {
        {"n", c.n},
        {"d", c.d},
        {"heads", 1},
        {"mixer", mixerKindName(c.mixer)},
        {"mask", c.mask},
        {"precision", precisionName(c.precision)},
        {"backend", "cpu"},
        {"repeat", c.repeat},
        {"gflops_dense", dense / t.median},
        {"gflops_useful", useful / t.median},
        {"fraction_of_peak",
         peak.gflops > 0 ? nlohmann::json(useful / t.median / peak.gflops) : nullptr},
        {"fraction_of_peak_cpu_time",
         peak.gflops > 0 ? nlohmann::json(useful / t.cpuMean / peak.gflopsPerCpuSecond) : nullptr},
        {"allowed_fraction", double(allowed) / (double(c.n) * c.n)}};
    j.update(timingJson(t));
    return j;
}

// Model::forward without maps of one layer (identity projections, width d) on random tokens:
// the path `check` and the CLI take on long sequences. No float64 reference (n may be huge).
nlohmann::json forwardCase(const Case& c, const PeakRate& peak) {
    if (c.precision == Precision::Exact) throw InputError("--forward: float32 or float64 only");
    ModelSpec spec;
    LayerSpec layer;
    layer.mixer.kind = c.mixer;
    layer.mask = parseBenchMask(c.mask);
    spec.layers = {layer};
    auto time = [&]<class T>() {
        const Model<T> model(spec, c.d);
        const Matrix<T> x = MatrixSpec::random(11).materialize<T>(c.n, c.d);
        return timeRuns([&] { (void)model.forward(x, Maps::Drop); }, c.warmup, c.repeat);
    };
    const Timing t = c.precision == Precision::Float32 ? time.template operator()<float>()
                                                       : time.template operator()<double>();
    nlohmann::json j = caseJson(c, t, peak);
    j["forward"] = true;
    j["max_error_vs_float64"] = nullptr;
    return j;
}

nlohmann::json runCase(const Case& c, const PeakRate& peak) {
    if (c.forward) return forwardCase(c, peak);
    if (c.precision == Precision::Exact) {
        if (c.mixer == MixerSpec::Kind::Softmax)
            throw InputError("precision exact: mixer softmax needs exp, use softmax_like or raw");
        const auto qkv = inputs<Rational>(c);
        MixerSpec mixer;
        mixer.kind = c.mixer;
        const BoolMatrix mask = buildMask(parseBenchMask(c.mask), c.n);
        const Timing t = timeRuns(
            [&] { (void)attendHead<Rational>(mixer, qkv[0], qkv[1], qkv[2], nullptr, mask); },
            c.warmup, c.repeat);
        nlohmann::json j = caseJson(c, t, peak);
        j["max_error_vs_float64"] = nullptr;
        return j;
    }
    const auto reference = inputs<double>(c);
    const Matrix<double> expected = float64Reference(c, reference);
    nlohmann::json j;
    if (c.precision == Precision::Float64) {
        j = caseJson(c, timeRuns([&] { runKernel<double>(c, reference); }, c.warmup, c.repeat),
                     peak);
        j["max_error_vs_float64"] =
            (runKernel<double>(c, reference) - expected).cwiseAbs().maxCoeff();
        return j;
    }
    std::vector<Matrix<float>> qkv;
    for (const auto& m : reference)
        qkv.push_back(m.cast<float>());
    j = caseJson(c, timeRuns([&] { runKernel<float>(c, qkv); }, c.warmup, c.repeat), peak);
    j["max_error_vs_float64"] =
        (runKernel<float>(c, qkv).cast<double>() - expected).cwiseAbs().maxCoeff();
    return j;
}

// permutation-equivariance with 100 random σ at n = 512, d = 64, float32: f(X) once, then one
// forward per σ.
nlohmann::json equivarianceSweep(int warmup, int repeat) {
    Scenario s;
    s.name = "bench-equivariance";
    s.precision = Precision::Float32;
    s.tokens = TokenSpec::random(512, 64, 1);
    LayerSpec layer;
    layer.wq = MatrixSpec::random(2, Rational(1, 8));
    layer.wk = MatrixSpec::random(3, Rational(1, 8));
    layer.wv = MatrixSpec::random(4, Rational(1, 8));
    s.model.layers = {layer};
    const std::vector<CheckSpec> checks{{"permutation-equivariance", {{"samples", 100}}}};
    std::string verdict;
    const Timing t = timeRuns(
        [&] { verdict = reportJson(runChecks(s, checks, 7).front()).value("verdict", ""); }, warmup,
        repeat);
    return {{"name", "equivariance-sweep"},
            {"n", 512},
            {"d", 64},
            {"precision", "float32"},
            {"permutations", 100},
            {"forwards", 101},
            {"repeat", repeat},
            {"verdict", verdict},
            {"seconds_median", t.median},
            {"seconds_min", t.min}};
}

// A 4096 x 4096 float32 map max-pooled to screen size (800 x 800): what a view of a large map
// redraws after an edit.
nlohmann::json pooledMapCase(int warmup, int repeat) {
    const Matrix<float> map = MatrixSpec::random(5).materialize<float>(4096, 4096);
    const Timing t =
        timeRuns([&] { (void)kernels::maxPool<float>(map, 800, 800); }, warmup, repeat);
    nlohmann::json j = {{"name", "pooled-map"},
                        {"n", 4096},
                        {"to", "800x800"},
                        {"precision", "float32"},
                        {"repeat", repeat}};
    j.update(timingJson(t));
    return j;
}

// The softmax weights of a 4096-token head pooled to 800 x 800 straight from Q and K, without
// the 4096² map: what a view of a long sequence redraws.
nlohmann::json pooledWeightsCase(int warmup, int repeat) {
    Case c;
    c.n = 4096;
    const auto qkv = inputs<float>(c);
    const kernels::HeadInputs<float> head{&qkv[0], &qkv[1], &qkv[2], std::nullopt};
    const Timing t =
        timeRuns([&] { (void)kernels::pooledWeights<float>({}, MaskSpec::all(), head, 800, 800); },
                 warmup, repeat);
    nlohmann::json j = {{"name", "pooled-weights"}, {"n", 4096},       {"d", 64}, {"to", "800x800"},
                        {"precision", "float32"},   {"repeat", repeat}};
    j.update(timingJson(t));
    return j;
}

std::vector<Case> standardSuite(const Case& base) {
    auto with = [&](int n, const char* mask, Precision p, int repeat) {
        Case c = base;
        c.n = n;
        c.mask = mask;
        c.precision = p;
        c.repeat = std::min(c.repeat, repeat);
        return c;
    };
    const auto f32 = Precision::Float32;
    std::vector<Case> suite{
        with(1024, "all", f32, 15),         with(4096, "all", f32, 15),
        with(4096, "causal", f32, 15),      with(16384, "all", f32, 3),
        with(16384, "window:128", f32, 15), with(4096, "all", Precision::Float64, 7)};
    Case exact = with(48, "all", Precision::Exact, 5);
    exact.d = 8;
    exact.mixer = MixerSpec::Kind::SoftmaxLike;
    suite.push_back(exact);
    return suite;
}

void printText(const nlohmann::json& result, std::ostream& out) {
    char line[256];
    if (result["peak_vector_bits"].is_null())
        std::snprintf(line, sizeof line, "peak: not probed (--skip-probe)\n");
    else
        std::snprintf(line, sizeof line,
                      "peak (FMA probe, %d threads, %d-bit vectors): %.1f GFLOP/s, %.1f GFLOP per "
                      "CPU second\n",
                      result["threads"].get<int>(), result["peak_vector_bits"].get<int>(),
                      number(result["peak_gflops"]), number(result["peak_gflops_per_cpu_second"]));
    out << line;
    for (const auto& c : result["cases"]) {
        if (c.contains("name")) {
            const std::string name = c["name"];
            const char* what = name == "equivariance-sweep" ? " n=512 x100"
                               : name == "pooled-map"       ? " 4096² -> 800²"
                                                            : " n=4096 -> 800²";
            std::snprintf(line, sizeof line, "%-40s median %.4f s (min %.4f s)\n",
                          (name + what).c_str(), c["seconds_median"].get<double>(),
                          c["seconds_min"].get<double>());
            out << line;
            continue;
        }
        const std::string what =
            c["mixer"].get<std::string>() + " " + c["mask"].get<std::string>() + " " +
            c["precision"].get<std::string>() + " n=" + std::to_string(c["n"].get<int>()) +
            " d=" + std::to_string(c["d"].get<int>());
        std::snprintf(line, sizeof line,
                      "%-40s median %.4f s  dense %7.1f  useful %7.1f GFLOP/s  %5.1f%% of peak"
                      " (%5.1f%% by CPU time)\n",
                      what.c_str(), c["seconds_median"].get<double>(),
                      c["gflops_dense"].get<double>(), c["gflops_useful"].get<double>(),
                      100 * number(c["fraction_of_peak"]),
                      100 * number(c["fraction_of_peak_cpu_time"]));
        out << line;
    }
    for (const auto& [key, value] : result["ratios"].items())
        out << key << ": " << value.get<double>() << "\n";
}

// `bench --backend opencl|cuda[:N]`: the chosen accelerator's layer kernel (bench_device.h).
int benchDevice(const Arguments& a, const std::string& backend, std::ostream& out) {
    const BackendChoice choice = parseBackendChoice(backend);
    requireSelectable(choice);
    const Backend& b = *findBackend(backendKindName(choice.kind));
    const Device* device = choice.device < 0 ? b.defaultDevice() : b.device(choice.device);
    const auto* accelerator = dynamic_cast<const AcceleratorDevice*>(device);
    if (!accelerator) throw InputError("--backend " + backend + ": no device (" + b.status() + ")");
    if (a.option("--mixer") && *a.option("--mixer") != "softmax")
        throw UsageError("--mixer: the device bench times softmax only");
    if (a.flag("--forward") || a.option("--query-block") || a.option("--key-block"))
        throw UsageError("--forward, --query-block and --key-block: for the cpu bench only");
    DeviceCase base;
    base.d = int(a.integer("--d", 64, 1, 4096));
    base.heads = int(a.integer("--heads", 16, 1, 4096));
    base.mask = a.option("--mask").value_or("all");
    (void)parseBenchMask(base.mask);
    const Precision precision = parsePrecision(a.option("--precision").value_or("float32"));
    if (precision == Precision::Exact)
        throw InputError("--precision exact: exact arithmetic runs on the CPU only");
    base.float64 = precision == Precision::Float64;
    if (base.float64 && !accelerator->attendsLayer(LayerSpec{}, Precision::Float64))
        throw InputError("--precision float64: " + device->info().selector() + " has no float64");
    base.repeat = int(a.integer("--repeat", 5, 1, 100000));
    base.warmup = int(a.integer("--warmup", 1, 0, 100000));
    std::optional<DeviceCase> one;
    if (a.option("--n")) {
        one = base;
        one->n = int(a.integer("--n", 4096, 1, 1 << 24));
    }
    const nlohmann::json result =
        deviceBench(*accelerator, device->info().selector(), one, base, a.flag("--skip-probe"));
    if (a.flag("--json"))
        out << result.dump(2) << "\n";
    else
        out << deviceBenchText(result);
    return 0;
}

} // namespace

int benchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
    const Arguments a(args, {"--json", "--skip-probe", "--forward"},
                      {"--n", "--d", "--mixer", "--mask", "--precision", "--backend", "--repeat",
                       "--warmup", "--query-block", "--key-block", "--heads"});
    if (a.help()) {
        out << benchUsage();
        return 0;
    }
    a.expectPositionals(0, "");
    const std::string backend = a.option("--backend").value_or("auto");
    const BackendChoice choice = parseBackendChoice(backend);
    requireSelectable(choice);
    if (choice.kind != BackendKind::Auto && choice.kind != BackendKind::Cpu)
        return benchDevice(a, backend, out);
    if (a.option("--heads")) throw UsageError("--heads: for --backend opencl or cuda only");
    Case base;
    base.d = int(a.integer("--d", 64, 1, 4096));
    base.mixer = parseMixer(a.option("--mixer").value_or("softmax"));
    base.mask = a.option("--mask").value_or("all");
    (void)parseBenchMask(base.mask);
    base.precision = parsePrecision(a.option("--precision").value_or("float32"));
    base.repeat = int(a.integer("--repeat", 15, 1, 100000));
    base.warmup = int(a.integer("--warmup", 3, 0, 100000));
    base.tiles.queryBlock = int(a.integer("--query-block", 128, 1, 1 << 20));
    base.tiles.keyBlock = int(a.integer("--key-block", 128, 1, 1 << 20));
    base.forward = a.flag("--forward");

    const PeakRate peak = a.flag("--skip-probe") ? PeakRate{} : measurePeak();
    nlohmann::json result = {
        {"peak_gflops", peak.gflops > 0 ? nlohmann::json(peak.gflops) : nullptr},
        {"peak_gflops_per_cpu_second",
         peak.gflops > 0 ? nlohmann::json(peak.gflopsPerCpuSecond) : nullptr},
        {"peak_vector_bits", peak.gflops > 0 ? nlohmann::json(peak.vectorBits) : nullptr},
        {"threads", kernels::availableThreads()},
        {"cases", nlohmann::json::array()},
        {"ratios", nlohmann::json::object()}};
    if (a.option("--n")) {
        base.n = int(a.integer("--n", 1024, 1, 1 << 24));
        result["cases"].push_back(runCase(base, peak));
    } else {
        for (const Case& c : standardSuite(base))
            result["cases"].push_back(runCase(c, peak));
        result["cases"].push_back(equivarianceSweep(1, std::min(base.repeat, 5)));
        result["cases"].push_back(pooledMapCase(1, base.repeat));
        result["cases"].push_back(pooledWeightsCase(1, std::min(base.repeat, 7)));
        const auto& cases = result["cases"];
        result["ratios"]["window128_speedup_vs_dense_n16384"] =
            cases[3]["seconds_median"].get<double>() / cases[4]["seconds_median"].get<double>();
    }
    if (a.flag("--json"))
        out << result.dump(2) << "\n";
    else
        printText(result, out);
    return 0;
}

} // namespace attnlab::cli
