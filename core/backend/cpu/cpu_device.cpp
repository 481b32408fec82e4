// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU device: what this machine reports about itself, and the computation on it.
#include "core/backend/cpu/cpu_device.h"

#include "core/backend/cpu/kernel_dispatch.h"

#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace attnlab {

namespace {
// The value after "key<tab>: " in a /proc file, or "" when absent.
std::string procField(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string value = line.substr(colon + 1);
                value.erase(0, value.find_first_not_of(" \t"));
                return value;
            }
        }
    return {};
}

// Which of AVX2, FMA and AVX-512 F the processor itself reports (cpuid, as the kernels' choice
// reads it): /proc/cpuinfo gives the host's flags under an emulator such as qemu-user.
std::vector<std::string> vectorInstructionSets() {
    std::vector<std::string> found;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) found.push_back("avx2");
    if (__builtin_cpu_supports("fma")) found.push_back("fma");
    if (__builtin_cpu_supports("avx512f")) found.push_back("avx512f");
#endif
    return found;
}

// The model name, memory and precisions of this machine's CPU.
DeviceInfo describeCpu() {
    DeviceInfo cpu;
    cpu.backend = "cpu";
    cpu.kind = DeviceKind::Cpu;
    cpu.name = procField("/proc/cpuinfo", "model name");
    if (cpu.name.empty()) cpu.name = "CPU";
    const std::string mem = procField("/proc/meminfo", "MemTotal"); // "24576000 kB"
    if (!mem.empty()) cpu.memoryBytes = std::stoull(mem) * 1024ULL;
    cpu.features = {"threads=" + std::to_string(std::thread::hardware_concurrency()),
                    "float32",
                    "float64",
                    "exact",
                    "all mixers",
                    "all masks"};
    for (std::string& isa : vectorInstructionSets())
        cpu.features.push_back(std::move(isa));
    return cpu;
}

class CpuDevice final : public Device {
public:
    CpuDevice() : Device(describeCpu()) {}

    Support supports(const HeadRequest&) const override { return {}; }
    HeadResult<float> attend(const HeadTask<float>& task) const override { return run(task); }
    HeadResult<double> attend(const HeadTask<double>& task) const override { return run(task); }
    HeadResult<Rational> attend(const HeadTask<Rational>& task) const override { return run(task); }

    using Device::attendLayer;
    bool attendsLayer(const LayerSpec& layer, Precision precision) const override {
        switch (precision) {
        case Precision::Float32:
            return kernels::fusedLayerApplies<float>(layer);
        case Precision::Float64:
            return kernels::fusedLayerApplies<double>(layer);
        case Precision::Exact:
            return kernels::fusedLayerApplies<Rational>(layer);
        }
        return false;
    }
    LayerResult<float> attendLayer(const LayerTask<float>& task) const override {
        return bySequence(task);
    }
    LayerResult<double> attendLayer(const LayerTask<double>& task) const override {
        return bySequence(task);
    }

private:
    // The fused kernel takes one sequence at a time (it spreads each over the threads).
    template <class T>
    static LayerResult<T> bySequence(const LayerTask<T>& task) {
        if (task.lengths.size() <= 1) return kernels::fusedLayerAttention(task);
        LayerResult<T> result{Matrix<T>(task.q.rows(), task.v.cols()), {}};
        Eigen::Index start = 0;
        for (int n : task.lengths) {
            const Matrix<T> q = task.q.middleRows(start, n), k = task.k.middleRows(start, n),
                            v = task.v.middleRows(start, n);
            LayerResult<T> one = kernels::fusedLayerAttention(
                LayerTask<T>{task.layer, task.positional, q, k, v, {}, task.offset});
            result.attention.middleRows(start, n) = one.attention;
            result.allMaskedRows.push_back(std::move(one.allMaskedRows.front()));
            start += n;
        }
        return result;
    }

    // Float and double on the chosen variant of the kernels, exact here (no vector code).
    template <class T>
    static HeadResult<T> run(const HeadTask<T>& task) {
        if constexpr (std::is_floating_point_v<T>) {
            return kernels::cpuKernels().in<T>().attendHead(task);
        } else {
            if (task.unmasked)
                return attendHeadUnmasked<T>(task.mixer, task.q, task.k, task.v, task.bias);
            return attendHead<T>(task.mixer, task.q, task.k, task.v, task.bias, task.maskCells);
        }
    }
};

} // namespace

std::unique_ptr<Device> makeCpuDevice() {
    return std::make_unique<CpuDevice>();
}

} // namespace attnlab
