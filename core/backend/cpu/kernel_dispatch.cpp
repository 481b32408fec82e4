// SPDX-License-Identifier: GPL-3.0-or-later
// The choice of the CPU kernels' variant, once, and the public kernels (and matrix product)
// forwarding to it.
#include "core/backend/cpu/kernel_dispatch.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <cstdlib>

namespace attnlab::kernels {

// The variants cmake/CpuKernels.cmake builds: each its table, constant data read only after the
// variant is chosen, so no instruction of a variant runs on a CPU without its instruction set.
#ifdef ATTNLAB_CPU_DISPATCH
namespace x86_64 {
extern const KernelTable kernelTable;
}
namespace x86_64_v3 {
extern const KernelTable kernelTable;
}
namespace x86_64_v4 {
extern const KernelTable kernelTable;
}
#else
namespace fixed {
extern const KernelTable kernelTable;
}
#endif

namespace {

struct Variant {
    CpuKernelVariant about;
    const KernelTable* table;
};

std::vector<Variant> variants() {
#ifdef ATTNLAB_CPU_DISPATCH
    // x86-64-v3 as the compilers define it; AVX2 implies the rest of it on every CPU that has it.
    __builtin_cpu_init();
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    // x86-64-v4: AVX-512 F, BW, CD, DQ and VL on top of v3.
    const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                    __builtin_cpu_supports("avx512vl");
    return {{{"x86-64", "SSE2", true}, &x86_64::kernelTable},
            {{"x86-64-v3", "AVX2+FMA", v3}, &x86_64_v3::kernelTable},
            {{"x86-64-v4", "AVX-512", v4}, &x86_64_v4::kernelTable}};
#else
    return {{{ATTNLAB_CPU_FIXED_NAME, "fixed at build time", true}, &fixed::kernelTable}};
#endif
}

struct Choice {
    Variant variant;
    std::string summary;
};

Choice choose() {
    const std::vector<Variant> all = variants();
    Choice c{all.front(), ""};
    std::string names;
    for (const Variant& v : all) {
        if (v.about.runs) c.variant = v;
        names += (names.empty() ? "" : ", ") + v.about.name;
    }
    std::string how = all.size() > 1 ? "chosen at run time" : "the only variant built";
    if (const char* forced = std::getenv("ATTNLAB_CPU_PATH"); forced && *forced) {
        how = std::string("ATTNLAB_CPU_PATH=") + forced + " ignored: not a variant this CPU runs";
        for (const Variant& v : all)
            if (v.about.runs && v.about.name == forced) {
                c.variant = v;
                how = "forced by ATTNLAB_CPU_PATH";
            }
    }
    c.summary = "kernels " + c.variant.about.name + " (" + c.variant.about.instructions + "), " +
                how + "; variants: " + names;
    return c;
}

const Choice& choice() {
    static const Choice c = choose();
    return c;
}

} // namespace

std::vector<CpuKernelVariant> cpuKernelVariants() {
    std::vector<CpuKernelVariant> result;
    for (const Variant& v : variants())
        result.push_back(v.about);
    return result;
}

const CpuKernelVariant& chosenCpuKernels() {
    return choice().variant.about;
}

std::string cpuKernelsSummary() {
    return choice().summary;
}

const KernelTable& cpuKernels() {
    return *choice().variant.table;
}

template <class T>
FusedResult<T> fusedAttention(const MixerSpec& mixer, const MaskSpec& mask,
                              const std::vector<HeadInputs<T>>& heads, KernelTiles tiles,
                              int queryRows, const BlockReuse<T>* reuse) {
    return cpuKernels().in<T>().fusedAttention(mixer, mask, heads, tiles, queryRows, reuse);
}

template <class T>
LayerResult<T> fusedLayerAttention(const LayerTask<T>& task) {
    return cpuKernels().in<T>().fusedLayerAttention(task);
}

template <class T>
Matrix<T> maxPool(const Matrix<T>& map, int maxRows, int maxCols, PoolBy by) {
    return cpuKernels().in<T>().maxPool(map, maxRows, maxCols, by);
}

template <class T>
Matrix<T> pooledWeights(const MixerSpec& mixer, const MaskSpec& mask, const HeadInputs<T>& head,
                        int maxRows, int maxCols) {
    return cpuKernels().in<T>().pooledWeights(mixer, mask, head, maxRows, maxCols);
}

/// Rows of a and columns of b per block of a product. The blocks are fixed by the shape alone,
/// never by the thread count, so a product has the same bits on one thread or many. 1536 rows is a
/// whole number of the rows Eigen's GEMM takes at a time on every variant (48, 24, 12 or 8 in
/// float; 24, 12, 6 or 4 in double), so no row but the last block's falls to a narrower kernel than
/// in one product of all rows; a long, narrow product (n x 64 by 64 x 64) is spread over the
/// threads by its rows.
constexpr Eigen::Index kProductBlockRows = 1536, kProductBlockCols = 128;

template <class T>
Matrix<T> product(const Factor<T>& a, const Factor<T>& b) {
    const auto multiply = cpuKernels().in<T>().product;
    const long rowBlocks = long((a.rows() + kProductBlockRows - 1) / kProductBlockRows);
    const long colBlocks = long((b.cols() + kProductBlockCols - 1) / kProductBlockCols);
    Matrix<T> out(a.rows(), b.cols());
    if (rowBlocks * colBlocks <= 1) {
        multiply(a, b, out);
        return out;
    }
    parallelFor(
        rowBlocks * colBlocks,
        [&](long block) {
            const Eigen::Index top = block / colBlocks * kProductBlockRows,
                               left = block % colBlocks * kProductBlockCols;
            const Eigen::Index rows = std::min(kProductBlockRows, a.rows() - top),
                               cols = std::min(kProductBlockCols, b.cols() - left);
            multiply(a.middleRows(top, rows), b.middleCols(left, cols),
                     out.block(top, left, rows, cols));
        },
        double(a.rows()) * double(a.cols()) * double(b.cols()));
    return out;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template FusedResult<T> fusedAttention<T>(const MixerSpec&, const MaskSpec&,                   \
                                              const std::vector<HeadInputs<T>>&, KernelTiles, int, \
                                              const BlockReuse<T>*);                               \
    template LayerResult<T> fusedLayerAttention<T>(const LayerTask<T>&);                           \
    template Matrix<T> maxPool<T>(const Matrix<T>&, int, int, PoolBy);                             \
    template Matrix<T> pooledWeights<T>(const MixerSpec&, const MaskSpec&, const HeadInputs<T>&,   \
                                        int, int);                                                 \
    template Matrix<T> product<T>(const Factor<T>&, const Factor<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab::kernels
