// SPDX-License-Identifier: GPL-3.0-or-later
// The kernels' 2^x (softmax_column.h) against exp2 in long double, compiled for one variant of
// the kernels (with the kernel-parts bench, kernel_parts.h): over every float in [-127, 8.5] at
// the shift 0, every K-th float at the whole shifts 31, -1000 and 65536 (each added to the shift
// and rounded, as a score is: near 65536 several give the same score), and doubles spread by
// their bits over [-1023, 8.5] at the shifts 0, 31, -5000 and 10^9; the worst relative error in
// units of the type's epsilon and where, the weights that came out subnormal, those not 0 at or
// below the floor, and whether 2^0 is 1. docs/performance.md's figures for the 2^x are its output.
#include "bench/kernel_parts.h"

#include "core/backend/cpu/softmax_column.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace {

using namespace attnlab::kernels;

// The number `stride` representable numbers above x (-0 and +0 counted once).
template <class T>
T stepUp(T x, long stride) {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const Bits magnitude = std::bit_cast<Bits>(std::abs(x)), by = Bits(stride);
    if (x >= 0) return std::bit_cast<T>(Bits(magnitude + by));
    return magnitude > by ? -std::bit_cast<T>(Bits(magnitude - by))
                          : std::bit_cast<T>(Bits(by - magnitude));
}

// Scans 2^(v - shift) for v = x + shift, x from `from` to `to` by `stride` numbers, as the kernels
// take it at that shift (softmax_column_detail::withExp2AtShift), and prints what it found.
template <class T>
void scan(T from, T to, long stride, T shift) {
    using namespace Eigen::internal;
    constexpr int L = kLanes<T>;
    double worst = 0;
    long double worstAt = 0;
    long count = 0, subnormal = 0, notZero = 0, notOne = 0;
    softmax_column_detail::withExp2AtShift(shift, [&](const auto& weightOf) {
        T in[L], out[L];
        for (T x = from; x <= to;) {
            int live = 0; // the lanes up to `to`; the last packet's others repeat `to`
            for (; live < L && x <= to; ++live, x = stepUp(x, stride))
                in[live] = x + shift;
            std::fill(in + live, in + L, to + shift);
            pstoreu(out, weightOf(ploadu<Packet<T>>(in)));
            for (int l = 0; l < live; ++l) {
                const long double arg = (long double)in[l] - (long double)shift;
                ++count;
                if (std::fpclassify(out[l]) == FP_SUBNORMAL) ++subnormal;
                if (arg <= kExp2Floor<T>) {
                    notZero += out[l] != T(0);
                    continue;
                }
                notOne += arg == 0 && out[l] != T(1);
                const long double exact = std::exp2(arg);
                const double error =
                    double(std::abs(out[l] - exact) / exact / std::numeric_limits<T>::epsilon());
                if (error > worst) {
                    worst = error;
                    worstAt = arg;
                }
            }
        }
        return 0;
    });
    std::printf("  %-6s shift %-6g [%g, %g] every %ld: %ld arguments, worst %.3f eps at %.9Lg; "
                "subnormal %ld, not 0 at or below the floor %ld, 2^0 not 1 %ld\n",
                sizeof(T) == 4 ? "float" : "double", double(shift), double(from), double(to),
                stride, count, worst, worstAt, subnormal, notZero, notOne);
    std::fflush(stdout);
}

} // namespace

int runExp2Accuracy(long every) {
    std::printf("the kernels' 2^x, %d-bit vectors, against exp2 in long double\n",
                kLanes<float> * 32);
    for (const float shift : {0.0f, 31.0f, -1000.0f, 65536.0f})
        scan<float>(-127.0f, 8.5f, shift == 0 ? 1 : every, shift);
    for (const double shift : {0.0, 31.0, -5000.0, 1e9})
        scan<double>(-1023.0, 8.5, 1L << 38, shift);
    return 0;
}
