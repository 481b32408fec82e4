// SPDX-License-Identifier: GPL-3.0-or-later
// The fused CPU kernel's parts alone, on one thread, in float, on the vectors of the instruction
// set this executable is compiled for (one executable per variant of the kernels): how close to
// the one-core FMA peak each part runs when nothing else costs anything, and so how far the whole
// kernel could go on this machine with its design (docs/performance.md). Never part of the tests.
//
// The parts, with the kernel's own code (block_product.h, softmax_column.h) on d = 64 and blocks
// of 128 queries x 128 keys:
//   tile          one register tile after another, everything in the L1 cache;
//   scores        a tile's scores Q·Kᵀ, stored;
//   scores+exp    the same with exp(score - shift) taken in the registers (ExpOfScores);
//   scores, pass  the stored scores, then expAndSum over each query's row (the second pass);
//   values        weights·V over every key block of n = 4096 keys (V read from the L2 cache);
//   block         one query block's loop over n = 4096 keys: scores+exp, then weights·V;
//   block, pass   the same with the scores stored and the second pass.
// Usage: attnlab-kernel-parts-<variant> [--rounds K]   (the best of K timed runs, 1-1000; 7), or
//        attnlab-kernel-parts-<variant> --exp2-accuracy [--every K]   (1-10⁶; 61,
//        122 s with x86-64-v3 on a Zen 4). Its entry,
// kernel_parts_main.cpp, runs it only on a processor that has the variant's instructions.
#include "bench/kernel_parts.h"

#include "core/backend/cpu/softmax_column.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace {

using namespace attnlab::kernels;
using T = float;
using P = Packet<T>;
constexpr int L = kLanes<T>;
constexpr int kRows = 128, kKeys = 128, kDepth = 64, kSequence = 4096;

// Zero-initialised floats on a 64-byte boundary, as the kernel's Eigen matrices are.
struct Buffer {
    std::unique_ptr<T, decltype(&std::free)> data;
    explicit Buffer(long count)
        : data(static_cast<T*>(std::aligned_alloc(64, std::size_t((count * 4 + 63) / 64 * 64))),
               &std::free) {
        std::fill_n(data.get(), count, T(0));
    }
    T* get() const { return data.get(); }
};

// Values in [-scale, scale) from a fixed sequence (scores of about one unit, as of real heads).
void fill(T* x, long count, T scale, unsigned seed) {
    for (long i = 0; i < count; ++i) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = scale * (T(seed >> 8) / T(1 << 24) * 2 - 1);
    }
}

// The best time per call of `rounds` runs of `body`, each about 2·10⁹ FLOP of calls.
template <class Body>
double bestSeconds(int rounds, double flopsPerCall, Body&& body) {
    const long calls = std::max(1L, long(2e9 / flopsPerCall));
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (long i = 0; i < calls; ++i)
            body();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count() / double(calls));
    }
    return best;
}

// The one-thread FMA peak on these vectors: 12 independent chains (probe as attnlab-cli bench's).
// Not inlined: inlined into its caller, it measured 147 GFLOP/s instead of 214 (AVX-512, GCC 12).
[[gnu::noinline]] double peakGflops(int rounds) {
    using namespace Eigen::internal;
    constexpr int kChains = 12;
    constexpr long kSteps = 20'000'000;
    P acc[kChains];
    const P a = pset1<P>(T(0.999999)), b = pset1<P>(T(1e-7));
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = pset1<P>(T(c));
        const auto start = std::chrono::steady_clock::now();
        for (long i = 0; i < kSteps; ++i)
#pragma GCC unroll 12
            for (int c = 0; c < kChains; ++c)
                acc[c] = pmadd(acc[c], a, b);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        best = std::min(best, took.count());
        P sum = acc[0];
#pragma GCC unroll 12
        for (int c = 1; c < kChains; ++c)
            sum = padd(sum, acc[c]);
        if (predux(sum) == T(12345)) std::puts(""); // keeps the chains
    }
    return 2.0 * L * kChains * double(kSteps) / best / 1e9;
}

} // namespace

int runKernelParts(int argc, char** argv) {
    std::optional<long> roundsGiven, every; // the timed runs' count; --exp2-accuracy's stride
    bool accuracy = false, unknown = false;
    // A whole number of at least 1 from the next argument, or nothing (a usage error).
    const auto count = [&](int& i) -> std::optional<long> {
        if (i + 1 >= argc) return std::nullopt;
        char* end = nullptr;
        errno = 0;
        const long value = std::strtol(argv[++i], &end, 10);
        if (*argv[i] == '\0' || *end != '\0' || errno == ERANGE || value < 1) return std::nullopt;
        return value;
    };
    for (int i = 1; i < argc && !unknown; ++i) {
        if (std::strcmp(argv[i], "--rounds") == 0) {
            roundsGiven = count(i);
            unknown = !roundsGiven || *roundsGiven > 1000;
        } else if (std::strcmp(argv[i], "--exp2-accuracy") == 0) {
            accuracy = true;
        } else if (std::strcmp(argv[i], "--every") == 0) {
            every = count(i);
            unknown = !every || *every > 1000000; // stepUp's stride must stay in 32 bits
        } else {
            unknown = true;
        }
    }
    if (unknown || (accuracy ? roundsGiven.has_value() : every.has_value())) {
        std::fprintf(stderr,
                     "usage: %s [--rounds K (1-1000)] | --exp2-accuracy [--every K (1-1000000)]\n",
                     argv[0]);
        return 2;
    }
    if (accuracy) return runExp2Accuracy(every.value_or(61));
    const int rounds = int(roundsGiven.value_or(7));
    const int keyBlocks = kSequence / kKeys;
    Buffer queries(kRows * kDepth), keys(long(kSequence) * kDepth),
        values(long(kSequence) * kDepth), scores(kRows * kKeys), output(kRows * kDepth);
    fill(queries.get(), kRows * kDepth, T(0.5), 1);
    fill(keys.get(), long(kSequence) * kDepth, T(0.5), 2);
    fill(values.get(), long(kSequence) * kDepth, T(1), 3);
    // Key block kb as the kernel packs it (depth x keys in strips), the values as one panel.
    const auto keyBlock = [&](int kb) {
        return Panel<T>{keys.get() + long(kb) * kKeys * kDepth,
                        long(kDepth) * Panel<T>::kStripWidth, kKeys};
    };
    const Panel<T> valuePanel{values.get(), long(kSequence) * Panel<T>::kStripWidth, kDepth};
    std::vector<T> shift(kRows, T(2)), sums(std::size_t(kRows) * L, T(0));
    const auto raised = std::make_unique<bool[]>(kRows);
    const ExpOfScores<T> exponentiate{shift.data(), sums.data(), raised.get()};
    const auto scoreProduct = [&](int kb) {
        blockProduct(false, kRows, kDepth, queries.get(), kDepth, keyBlock(kb), 0, 0, kKeys / L,
                     scores.get(), kKeys);
    };
    const auto scoresWithExp = [&](int kb) {
        blockProduct(kRows, kDepth, queries.get(), kDepth, keyBlock(kb), 0, 0, kKeys / L,
                     scores.get(), kKeys, exponentiate);
    };
    const auto secondPass = [&] {
        for (int i = 0; i < kRows; ++i) {
            T at = shift[std::size_t(i)];
            P sum = Eigen::internal::ploadu<P>(sums.data() + i * L);
            expAndSum(scores.get() + i * kKeys, 0, kKeys, kKeys, at, sum, [](T) {});
            Eigen::internal::pstoreu(sums.data() + i * L, sum);
        }
    };
    const auto valueProduct = [&](int kb) {
        blockProduct(true, kRows, kKeys, scores.get(), kKeys, valuePanel, long(kb) * kKeys, 0,
                     kDepth / L, output.get(), kDepth);
    };
    const double tile = 2.0 * kRows * kKeys * kDepth; // one product of one tile
    struct Part {
        const char* name;
        double flops;
        double seconds;
    };
    std::vector<Part> parts;
    {
        constexpr int rows = 20 * kTileRows; // 20 register tiles, one below the other
        const double flops = 2.0 * rows * kTileVectors * L * kDepth;
        parts.push_back({"tile", flops, bestSeconds(rounds, flops, [&] {
                             for (int r = 0; r < rows; r += kTileRows)
                                 block_product_detail::registerTile<T, kTileRows, kTileVectors>(
                                     kDepth, queries.get() + r * kDepth, kDepth, keys.get(),
                                     kTileVectors * L, scores.get() + r * kTileVectors * L,
                                     kTileVectors * L, StoreSums<T>{false});
                         })});
    }
    parts.push_back({"scores", tile, bestSeconds(rounds, tile, [&] { scoreProduct(0); })});
    parts.push_back({"scores+exp", tile, bestSeconds(rounds, tile, [&] { scoresWithExp(0); })});
    parts.push_back({"scores, pass", tile, bestSeconds(rounds, tile, [&] {
                         scoreProduct(0);
                         secondPass();
                     })});
    parts.push_back({"values", tile * keyBlocks, bestSeconds(rounds, tile * keyBlocks, [&] {
                         for (int kb = 0; kb < keyBlocks; ++kb)
                             valueProduct(kb);
                     })});
    parts.push_back({"block", 2 * tile * keyBlocks, bestSeconds(rounds, 2 * tile * keyBlocks, [&] {
                         for (int kb = 0; kb < keyBlocks; ++kb) {
                             scoresWithExp(kb);
                             valueProduct(kb);
                         }
                     })});
    parts.push_back(
        {"block, pass", 2 * tile * keyBlocks, bestSeconds(rounds, 2 * tile * keyBlocks, [&] {
             for (int kb = 0; kb < keyBlocks; ++kb) {
                 scoreProduct(kb);
                 secondPass();
                 valueProduct(kb);
             }
         })});
    const double peak = peakGflops(rounds);
    std::printf("one thread, %d-bit vectors, tiles of %d x %d vectors; FMA peak %.1f GFLOP/s\n",
                L * 32, kTileRows, kTileVectors, peak);
    for (const Part& p : parts) {
        const double gflops = p.flops / p.seconds / 1e9;
        std::printf("  %-13s %7.1f GFLOP/s  %5.1f%% of the peak\n", p.name, gflops,
                    100 * gflops / peak);
    }
    if (std::count(raised.get(), raised.get() + kRows, true) > 0)
        std::printf("  (a score rose past its shift's slack: the exp parts wrote wrong weights)\n");
    return 0;
}
