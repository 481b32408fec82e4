// SPDX-License-Identifier: GPL-3.0-or-later
// The accelerator half of `attnlab-cli bench` (bench_device.h).
#include "bench_device.h"

#include "bench_support.h"

#include "core/backend/accelerator.h"
#include "core/backend/registry.h"
#include "core/spec/block_classification.h"
#include "core/spec/matrix_spec.h"

#include <cstdio>

namespace attnlab::cli {

namespace {

constexpr int kRowsCompared = 64; // of each case, against the CPU in float64

// The CPU's float64 layer on the first rows: the reference each case's error is taken against.
Matrix<double> cpuReference(const LayerSpec& layer, const std::vector<Matrix<double>>& qkv) {
    const Device& cpu = *backends().back()->defaultDevice();
    const PositionalSpec none;
    const LayerTask<double> task{layer, none, qkv[0], qkv[1], qkv[2], {}, 0, kRowsCompared};
    return cpu.attendLayer(task).attention;
}

template <class T>
nlohmann::json runCase(const AcceleratorDevice& device, const std::string& selector,
                       const DeviceCase& c, double peakGflops) {
    LayerSpec layer;
    layer.heads = c.heads;
    layer.mask = parseBenchMask(c.mask);
    std::vector<Matrix<double>> qkv;
    for (std::uint64_t seed : {11, 12, 13})
        qkv.push_back(MatrixSpec::random(seed).materialize<double>(c.n, c.d * c.heads));
    std::vector<Matrix<T>> inputs;
    for (const auto& m : qkv)
        inputs.push_back(m.cast<T>());
    const PositionalSpec none;
    const LayerTask<T> task{layer, none, inputs[0], inputs[1], inputs[2]};
    LayerResult<T> result;
    const Timing t = timeRuns([&] { result = device.attendLayer(task); }, c.warmup, c.repeat);
    const int rows = std::min(c.n, kRowsCompared);
    const double error = (result.attention.topRows(rows).template cast<double>() -
                          cpuReference(layer, qkv).topRows(rows))
                             .cwiseAbs()
                             .maxCoeff();
    const long long allowed = kernels::allowedEntries(layer.mask, c.n);
    const double perHead = 4.0 * double(c.d) * double(c.heads) / 1e12;
    const double dense = perHead * (double(c.n) * double(c.n)) / t.median;
    const double useful = perHead * double(allowed) / t.median;
    return {{"n", c.n},
            {"d", c.d},
            {"heads", c.heads},
            {"mixer", "softmax"},
            {"mask", c.mask},
            {"precision", c.float64 ? "float64" : "float32"},
            {"backend", selector},
            {"repeat", c.repeat},
            {"seconds_median", t.median},
            {"seconds_min", t.min},
            {"tflops_dense", dense},
            {"tflops_useful", useful},
            {"fraction_of_peak", peakGflops > 0 && !c.float64
                                     ? nlohmann::json(useful * 1e3 / peakGflops)
                                     : nlohmann::json(nullptr)},
            {"max_error_vs_cpu_float64", error},
            {"rows_compared", rows},
            {"allowed_fraction", double(allowed) / (double(c.n) * c.n)}};
}

nlohmann::json runCase(const AcceleratorDevice& device, const std::string& selector,
                       const DeviceCase& c, double peakGflops) {
    return c.float64 ? runCase<double>(device, selector, c, peakGflops)
                     : runCase<float>(device, selector, c, peakGflops);
}

// The standard suite (the GPU path's targets): dense, causal at n = 16384; window:256 and dense at
// n = 65536; float64 dense at 4096; 16 heads of width 64. Sizes divided by `scale`.
std::vector<DeviceCase> suite(const DeviceCase& base, int scale, bool fp64) {
    auto with = [&](int n, const char* mask, bool float64, int repeat) {
        DeviceCase c = base;
        c.n = n / scale;
        c.mask = mask;
        c.float64 = float64;
        c.repeat = std::min(c.repeat, repeat);
        return c;
    };
    std::vector<DeviceCase> cases{with(16384, "all", false, 5), with(16384, "causal", false, 5),
                                  with(65536, "window:256", false, 5),
                                  with(65536, "all", false, 3)};
    if (fp64) cases.push_back(with(4096, "all", true, 5));
    return cases;
}

} // namespace

nlohmann::json deviceBench(const AcceleratorDevice& device, const std::string& selector,
                           const std::optional<DeviceCase>& one, const DeviceCase& base,
                           bool skipProbe) {
    // The probe's chains run scalar on a CPU's OpenCL (PoCL does not vectorise them): its peak
    // would flatter every fraction, so only a GPU's is measured.
    const bool gpu = device.info().kind == DeviceKind::Gpu;
    const double peak = skipProbe || !gpu ? 0 : device.measurePeakGflops();
    nlohmann::json result = {
        {"backend", selector},
        {"device", device.info().name},
        {"peak_tflops", peak > 0 ? nlohmann::json(peak / 1e3) : nullptr},
        {"suite_scale", one ? nlohmann::json(nullptr) : nlohmann::json(gpu ? 1 : 16)},
        {"cases", nlohmann::json::array()},
        {"ratios", nlohmann::json::object()}};
    if (one) {
        result["cases"].push_back(runCase(device, selector, *one, peak));
        return result;
    }
    const bool fp64 = device.attendsLayer(LayerSpec{}, Precision::Float64);
    for (const DeviceCase& c : suite(base, gpu ? 1 : 16, fp64))
        result["cases"].push_back(runCase(device, selector, c, peak));
    const auto& cases = result["cases"];
    result["ratios"]["window256_speedup_vs_dense_n" + std::to_string(cases[3]["n"].get<int>())] =
        cases[3]["seconds_median"].get<double>() / cases[2]["seconds_median"].get<double>();
    return result;
}

std::string deviceBenchText(const nlohmann::json& result) {
    std::string text;
    char line[256];
    if (result["peak_tflops"].is_null())
        std::snprintf(line, sizeof line,
                      "%s (%s): no peak (probed on GPUs only, and not with --skip-probe)\n",
                      result["backend"].get<std::string>().c_str(),
                      result["device"].get<std::string>().c_str());
    else
        std::snprintf(line, sizeof line, "%s (%s): float32 peak (FMA probe) %.3f TFLOP/s\n",
                      result["backend"].get<std::string>().c_str(),
                      result["device"].get<std::string>().c_str(),
                      result["peak_tflops"].get<double>());
    text += line;
    if (!result["suite_scale"].is_null() && result["suite_scale"].get<int>() > 1)
        text += "(not a GPU: the suite's sizes divided by " +
                std::to_string(result["suite_scale"].get<int>()) + ")\n";
    for (const auto& c : result["cases"]) {
        const std::string what =
            c["mask"].get<std::string>() + " " + c["precision"].get<std::string>() +
            " n=" + std::to_string(c["n"].get<int>()) + " d=" + std::to_string(c["d"].get<int>()) +
            " heads=" + std::to_string(c["heads"].get<int>());
        char share[32] = "";
        if (!c["fraction_of_peak"].is_null())
            std::snprintf(share, sizeof share, "  %5.1f%% of peak",
                          100 * c["fraction_of_peak"].get<double>());
        std::snprintf(line, sizeof line,
                      "%-42s median %.4f s  dense %8.3f  useful %8.3f TFLOP/s%s  error %.1e\n",
                      what.c_str(), c["seconds_median"].get<double>(),
                      c["tflops_dense"].get<double>(), c["tflops_useful"].get<double>(), share,
                      c["max_error_vs_cpu_float64"].get<double>());
        text += line;
    }
    for (const auto& [key, value] : result["ratios"].items())
        text += key + ": " + std::to_string(value.get<double>()) + "\n";
    return text;
}

} // namespace attnlab::cli
