// FMA peak probe: 12 independent accumulators per thread hide the FMA latency on every
// x86-64 core with two FMA pipes; with AVX2/FMA each is an 8-lane vector. Built with the CPU
// kernels' instruction set (ATTNLAB_ARCH), so it measures the peak they can reach.
#include "core/backend/cpu/peak_probe.h"

#include "core/base/parallel.h"

#include <atomic>
#include <chrono>
#include <ctime>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>

namespace attnlab {

namespace {

constexpr int kChains = 12;
constexpr long kIterations = 400'000'000; // about 0.1 s per thread at 100 GFLOP/s

#ifdef __FMA__
constexpr int kLanes = 8;
float fmaChains(long iterations, float seed) {
    __m256 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm256_set1_ps(seed + float(c));
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    __m256 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm256_add_ps(sum, acc[c]);
    alignas(32) float lanes[kLanes];
    _mm256_store_ps(lanes, sum);
    return lanes[0];
}
#else
constexpr int kLanes = 1;
float fmaChains(long iterations, float seed) {
    float acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = seed + float(c);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = acc[c] * 0.999999f + 1e-7f;
    float sum = 0;
    for (float x : acc)
        sum += x;
    return sum;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// The same chains on 16-lane AVX-512 vectors, compiled for that target whatever -march says,
// and only called where the CPU has it: the peak belongs to the machine, not to the build.
__attribute__((target("avx512f"))) float fmaChains512(long iterations, float seed) {
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_ps(seed + float(c));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    __m512 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_ps(sum, acc[c]);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, sum);
    return lanes[0];
}
bool hasAvx512() {
    return __builtin_cpu_supports("avx512f");
}
#else
float fmaChains512(long, float) {
    return 0;
}
bool hasAvx512() {
    return false;
}
#endif

// Best rates of `chains` (lanes wide) on every thread over five runs.
template <class Chains>
PeakRate probe(Chains chains, int lanes) {
    const int threads = kernels::availableThreads();
    const long iterations = kIterations / kChains;
    PeakRate best;
    std::atomic<float> sink = 0; // keeps the chains from being optimised away
    for (int run = 0; run < 5; ++run) {
        const double cpu0 = processCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        kernels::parallelFor(threads, [&](long t) { sink.store(chains(iterations, float(t))); });
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double gflop = 2.0 * lanes * kChains * double(iterations) * threads / 1e9;
        best.gflops = std::max(best.gflops, gflop / seconds);
        best.gflopsPerCpuSecond =
            std::max(best.gflopsPerCpuSecond, gflop / (processCpuSeconds() - cpu0));
    }
    return best;
}

} // namespace

double processCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

PeakRate measurePeak() {
    const PeakRate narrow = probe(fmaChains, kLanes);
    if (!hasAvx512()) return narrow;
    const PeakRate wide = probe(fmaChains512, 16);
    return {std::max(narrow.gflops, wide.gflops),
            std::max(narrow.gflopsPerCpuSecond, wide.gflopsPerCpuSecond)};
}

} // namespace attnlab
