// SPDX-License-Identifier: GPL-3.0-or-later
// FMA peak probe: 12 independent accumulators per thread hide the FMA latency on every core with
// two FMA pipes. The chains exist for each vector width a CPU may have (AVX2/FMA and AVX-512 by
// function target attributes: intrinsics only, no shared template code). The width the chosen
// kernels run on (their table says) is measured: the peak those kernels could reach. On a real
// CPU the kernels chosen are its widest; ATTNLAB_CPU_PATH=x86-64-v3 on an AVX-512 CPU (a stand-in
// for a CPU without AVX-512) is measured against 256-bit FMAs, which on some CPUs (Intel with two
// 512-bit FMA ports) reach half the AVX-512 rate.
#include "core/backend/cpu/peak_probe.h"

#include "core/backend/cpu/kernel_dispatch.h"
#include "core/backend/cpu/kernel_table.h"
#include "core/base/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace attnlab {

namespace {

constexpr int kChains = 12;
constexpr long kIterations = 400'000'000; // about 0.1 s per thread at 100 GFLOP/s

// Every processor: 4-lane vectors of the compiler's vector extension (SSE2 on x86-64, NEON on
// aarch64); a multiply and an add per lane, or their fusion where the target has it.
using Float4 = float __attribute__((vector_size(16)));
float chains128(long iterations, float seed) {
    Float4 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = Float4{} + (seed + float(c));
    const Float4 a = Float4{} + 0.999999f, b = Float4{} + 1e-7f;
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = acc[c] * a + b;
    Float4 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum += acc[c];
    return sum[0];
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float fmaChains256(long iterations, float seed) {
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
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, sum);
    return lanes[0];
}

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
#endif

// Best rates of `chains` (lanes wide) on every thread over five runs.
template <class Chains>
PeakRate probe(Chains chains, int lanes, int bits) {
    const int threads = kernels::availableThreads();
    const long iterations = kIterations / kChains;
    PeakRate best{.vectorBits = bits};
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
#if defined(__x86_64__)
    const kernels::KernelTable& chosen = kernels::cpuKernels();
    if (chosen.vectorBits >= 512) return probe(fmaChains512, 16, 512);
    if (chosen.vectorBits >= 256 && chosen.fma) return probe(fmaChains256, 8, 256);
#endif
    return probe(chains128, 4, 128); // 128-bit vectors, or wider ones without FMA: a lower bound
}

} // namespace attnlab
