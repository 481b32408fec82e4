// SPDX-License-Identifier: GPL-3.0-or-later
// Inside the kernels: the online softmax's two passes over one query's scores in a tile, on
// whole packets (block_product.h). The column is padded to whole vectors; entries in [0, cols)
// are scores or -inf (blocked), entries past cols are not keys. The scores are in base 2 (the
// mixer's times log2(e), score_tiles.h): a weight is 2^(s - shift), which is exp of the mixer's
// score minus its shift, and 2^x needs no reduction by ln(2).
#pragma once

#include "core/backend/cpu/block_product.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

namespace attnlab::kernels {

/// At or below this, 2^x is taken as 0; above it, 2^x is at least 2^-125.5 = 1.6e-38 (float) or
/// 2^-1021.5 = 3.1e-308 (double), still normal numbers, and a weight that small is far below a
/// rounding of the row's sum (which holds its largest weight, above 2^-1). The kernels' 2^x rounds
/// x to the whole number m and takes 2^(m - 1) from the exponent field (times the polynomial,
/// doubled), which then holds m + 126 (float; m + 1022 in double): the numbers at or below the
/// floor round to m = -126 (-1022), whose field 0 is the number +0.
template <class T>
inline constexpr T kExp2Floor = std::is_same_v<T, float> ? T(-125.5) : T(-1021.5);

/// Where a query's shift is a whole number no larger than this in magnitude, the kernels'
/// 2^(v - shift) takes v as it is, with no subtraction (softmax_column_detail::exp2AtShift): the
/// shifts the online softmax sets are whole numbers (expAndSum). Within it, shift + kExp2Floor is
/// exact (the spacing of the numbers there is at most 1/4) and so is the whole number
/// roundWithBias - shift, which stays within [2^p, 2^(p+1)) (p = 23 in float, 52 in double).
template <class T>
inline constexpr T kWholeShiftLimit = std::is_same_v<T, float> ? T(1 << 21) : T(1LL << 50);

/// Whether the kernels' 2^(v - shift) takes the scores v as they are (softmax_column_detail::
/// exp2AtShift): where T has its own 2^x steps and the shift is a whole number within
/// kWholeShiftLimit, as every shift the online softmax sets is unless a score is that large.
template <class T>
bool takesScoresAsTheyAre(T shift);

namespace softmax_column_detail {

// Calls f(k, packet of x at k) for k from lo's packet up to hi in whole packets, the lanes at or
// past `cols` (the last packet's padding) replaced by `outside`, until f returns false; returns
// the k of that packet, or the k after the last (at or past hi). Only the last packet can reach
// past cols: the others are plain loads.
template <class T, class F>
int forEachPacket(const T* x, int lo, int hi, int cols, T outside, F&& f) {
    using namespace Eigen::internal;
    constexpr int L = kLanes<T>;
    int k = lo / L * L;
    for (const int whole = std::min(hi, cols - L + 1); k < whole; k += L)
        if (!f(k, ploadu<Packet<T>>(x + k))) return k;
    if (k < hi) {
        const Packet<T> isKey = pcmp_lt(plset<Packet<T>>(T(k)), pset1<Packet<T>>(T(cols)));
        if (!f(k, pselect(isKey, ploadu<Packet<T>>(x + k), pset1<Packet<T>>(outside)))) return k;
        k += L;
    }
    return k;
}

// 2^(m - 1), for t = (1.5·2^23 + 126) + m in float: m + 126, the low bits of t's mantissa, moved
// into the exponent field (+0 for m = -126) (the packet type is deduced: naming it as a template
// argument would drop its vector attributes). A multiplication by it keeps a NaN whatever its
// payload, where adding m to the exponent bits as an integer would not.
template <class P>
P powerOfTwoIn(const P& t) {
    using namespace Eigen::internal;
    using Int = typename unpacket_traits<P>::integer_packet;
    return preinterpret<P>(plogical_shift_left<23>(preinterpret<Int>(t)));
}

// The same in double, t = (1.5·2^52 + 1022) + m: a 64-bit integer shift, which Eigen 3.4 has
// for none of the x86 double packets, so it is the instruction set's own. Without one (AVX
// without AVX2) double takes Eigen's exp.
#if defined(__AVX512F__)
inline constexpr bool kDoubleShift = true;
inline Eigen::internal::Packet8d powerOfTwoIn(const Eigen::internal::Packet8d& t) {
    return _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_castpd_si512(t), 52));
}
#elif defined(__AVX2__)
inline constexpr bool kDoubleShift = true;
inline Eigen::internal::Packet4d powerOfTwoIn(const Eigen::internal::Packet4d& t) {
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(t), 52));
}
#elif defined(__SSE2__) && !defined(__AVX__)
inline constexpr bool kDoubleShift = true;
inline Eigen::internal::Packet2d powerOfTwoIn(const Eigen::internal::Packet2d& t) {
    return _mm_castsi128_pd(_mm_slli_epi64(_mm_castpd_si128(t), 52));
}
#elif defined(__aarch64__)
inline constexpr bool kDoubleShift = true;
inline Eigen::internal::Packet2d powerOfTwoIn(const Eigen::internal::Packet2d& t) {
    return vreinterpretq_f64_s64(vshlq_n_s64(vreinterpretq_s64_f64(t), 52));
}
#else
inline constexpr bool kDoubleShift = false;
#endif

// The constants of the kernels' 2^x in each type: whether it has its own (else Eigen's exp); the
// number added to x that rounds it to the whole number m in the low bits of its mantissa, with the
// exponent bias less one added (1.5·2^p + bias - 1: the field m + bias - 1 is 0 at the floor's m
// and positive above); and the coefficients of 2^r for |r| <= 1/2, highest power first, with
// p(0) = 1 (a score equal to its query's shift gets the weight 1 exactly), which the steps take
// twice (times 2^(m - 1)).
template <class T>
struct Exp2Steps;

template <>
struct Exp2Steps<float> {
    static constexpr bool own = true;
    static constexpr float roundWithBias = 12582912.0f + 126.0f;
    // Degree 5, fitted for the least largest relative error with each coefficient rounded to
    // float before the next ones are fitted (scripts/fit-exp-polynomial.py: 9.3e-8).
    static constexpr std::array<float, 6> nearZero{1.3269407209008932e-3f, 9.671294130384922e-3f,
                                                   5.550711229443550e-2f,  2.4022246897220612e-1f,
                                                   6.931470036506653e-1f,  1.0f};
};

template <>
struct Exp2Steps<double> {
    static constexpr bool own = kDoubleShift;
    static constexpr double roundWithBias = 6755399441055744.0 + 1022.0;
    // The Taylor polynomial of exp(r·ln(2)) of degree 12, ln(2)^k / k!: its remainder is below
    // 2.4e-16 of 2^r there.
    static constexpr std::array<double, 13> nearZero{2.5678435993488206e-11,
                                                     4.4455382718708116e-10,
                                                     7.054911620801123e-09,
                                                     1.01780860092397e-07,
                                                     1.321548679014431e-06,
                                                     1.5252733804059841e-05,
                                                     1.540353039338161e-04,
                                                     1.3333558146428443e-03,
                                                     9.618129107628477e-03,
                                                     5.550410866482158e-02,
                                                     2.4022650695910072e-01,
                                                     6.931471805599453e-01,
                                                     1.0};
};

// Horner's scheme over twice the coefficients, highest power first (doubling them is exact): one
// multiply-add each after the first.
template <class P, class T, std::size_t N>
P twiceHorner(const P& r, const std::array<T, N>& coefficients) {
    using namespace Eigen::internal;
    P p = pset1<P>(2 * coefficients[0]);
    for (std::size_t i = 1; i < N; ++i)
        p = pmadd(p, r, pset1<P>(2 * coefficients[i]));
    return p;
}

// 2^(v - s) for a whole number s (|s| <= kWholeShiftLimit, 0 for the 2^x of x itself), from
// `lowest` = s + the floor and `offset` = roundWithBias - s: v clamped at `lowest` (no step makes
// a subnormal number, and NaN stays NaN), t = v + offset, which rounds v to the whole number m
// (exactly: offset is a whole number and t lies in [2^p, 2^(p+1)), where the spacing is 1),
// r = v - m (exact), 2^r by the polynomial, times 2^(m - s - 1) from t's bits, doubled in the
// polynomial. At or below the floor m - s is the floor's, whose 2^(m - s - 1) is +0: the weight is
// exactly 0, with no compare. Float: 11 vector operations, 6 of them multiplications.
template <class P>
P exp2AtShift(const P& v, const P& lowest, const P& offset) {
    using namespace Eigen::internal;
    using Steps = Exp2Steps<typename unpacket_traits<P>::type>;
    const P vc = pmax(v, lowest); // NaN stays NaN
    const P t = padd(vc, offset);
    const P r = psub(vc, psub(t, offset)); // v - round(v), exactly
    return pmul(twiceHorner(r, Steps::nearZero), powerOfTwoIn(t));
}

// exp2AtShift's constants for a shift that takesScoresAsTheyAre: `lowest` and `offset`.
template <class T>
struct WholeShiftExp2 {
    Packet<T> lowest, offset;
    explicit WholeShiftExp2(T shift)
        : lowest(Eigen::internal::pset1<Packet<T>>(shift + kExp2Floor<T>)),
          offset(Eigen::internal::pset1<Packet<T>>(Exp2Steps<T>::roundWithBias - shift)) {}
    Packet<T> operator()(const Packet<T>& v) const { return exp2AtShift(v, lowest, offset); }
};

// 2^x for x up to a little above kShiftSlack (a score minus its query's shift; the exponent field
// m + 126 holds up to m = 128), exactly 0 for x = -inf and at or below the floor: never subnormal
// (the product with V would take the processor's slow path); NaN stays NaN. The kernels' own steps
// are exp2AtShift at the shift 0: 11 vector operations in float, 6 of them multiplications, against
// 13 with the compare that cleared the weights below the floor, and 14 (9) for exp(x) with its
// reduction by ln(2) in two steps (Cody and Waite), which that replaced. Double: Eigen's exp,
// which it replaced before that, divides (float64 at n = 4096 took 12-22% longer with it, three
// interleaved rounds on x86-64-v3 and v4). `own` false takes Eigen's steps, as where the type has
// no steps of its own (a test runs it everywhere).
template <class T, bool own = Exp2Steps<T>::own>
Packet<T> exp2OfScore(const Packet<T>& x) {
    using namespace Eigen::internal;
    const Packet<T> floor = pset1<Packet<T>>(kExp2Floor<T>);
    if constexpr (!own) {
        // Eigen's exp(r·ln(2)) times 2^m by its ldexp: exp(x·ln(2)) itself would take the
        // rounding of x·ln(2), up to 363 eps at x = -1020.
        const Packet<T> xc = pmax(x, floor); // NaN stays NaN
        const Packet<T> m = print(xc);
        const Packet<T> r = psub(xc, m);
        return pandnot(pldexp(pexp(pmul(r, pset1<Packet<T>>(std::numbers::ln2_v<T>))), m),
                       pcmp_le(x, floor));
    } else {
        return WholeShiftExp2<T>(T(0))(x);
    }
}

// Calls f(weightOf) with weightOf(v) = 2^(v - shift) for packets v of one query's scores, and
// returns what f returns: WholeShiftExp2 where the shift takesScoresAsTheyAre (one vector operation
// fewer than the subtraction, whose rounding it also leaves out), else exp2OfScore of v - shift (0
// for every v with the shift -inf, no score yet).
template <class T, class F>
decltype(auto) withExp2AtShift(T shift, F&& f) {
    using namespace Eigen::internal;
    if constexpr (Exp2Steps<T>::own) // else WholeShiftExp2 has no powerOfTwoIn to compile
        if (takesScoresAsTheyAre(shift)) return f(WholeShiftExp2<T>(shift));
    const Packet<T> by =
        pset1<Packet<T>>(shift == -std::numeric_limits<T>::infinity() ? T(0) : shift);
    return f([=](const Packet<T>& v) { return exp2OfScore<T>(psub(v, by)); });
}

// Whether a lane of v is above the same lane of limit (false for NaN): through Eigen's predux_any,
// or the instruction set's own compare to a mask where Eigen 3.4 has only a generic predux_any
// that adds the lanes (double) or turns AVX-512's mask register into a vector and tests that
// (float: two more operations per packet of an online-softmax step).
template <class P>
bool anyAbove(const P& v, const P& limit) {
    return Eigen::internal::predux_any(Eigen::internal::pcmp_lt(limit, v));
}
#if defined(__AVX512F__)
inline bool anyAbove(const Eigen::internal::Packet16f& v, const Eigen::internal::Packet16f& limit) {
    return _mm512_cmp_ps_mask(limit, v, _CMP_LT_OQ) != 0;
}
inline bool anyAbove(const Eigen::internal::Packet8d& v, const Eigen::internal::Packet8d& limit) {
    return _mm512_cmp_pd_mask(limit, v, _CMP_LT_OQ) != 0;
}
#endif
#if defined(__AVX__)
inline bool anyAbove(const Eigen::internal::Packet4d& v, const Eigen::internal::Packet4d& limit) {
    return _mm256_movemask_pd(_mm256_cmp_pd(limit, v, _CMP_LT_OQ)) != 0;
}
#elif defined(__SSE2__)
inline bool anyAbove(const Eigen::internal::Packet2d& v, const Eigen::internal::Packet2d& limit) {
    return _mm_movemask_pd(_mm_cmplt_pd(limit, v)) != 0;
}
#endif

// x[0 .. count) *= factor, where count is whole packets, with each product below the smallest
// normal number set to 0 (a weight 2^(x - shift) moved to a higher shift).
template <class T>
void scaleWithoutSubnormals(T* x, int count, T factor) {
    using namespace Eigen::internal;
    const Packet<T> by = pset1<Packet<T>>(factor),
                    smallest = pset1<Packet<T>>(std::numeric_limits<T>::min());
    for (int k = 0; k < count; k += kLanes<T>) {
        const Packet<T> p = pmul(ploadu<Packet<T>>(x + k), by);
        pstoreu(x + k, pandnot(p, pcmp_lt(p, smallest)));
    }
}

} // namespace softmax_column_detail

template <class T>
bool takesScoresAsTheyAre(T shift) {
    return softmax_column_detail::Exp2Steps<T>::own && std::abs(shift) <= kWholeShiftLimit<T> &&
           shift == std::trunc(shift);
}

/// The largest score among x[lo .. hi) (-inf when none): every entry outside it is -inf, so
/// whole packets from the one holding lo are read.
template <class T>
T liveMax(const T* x, int lo, int hi, int cols) {
    using namespace Eigen::internal;
    constexpr T minusInf = -std::numeric_limits<T>::infinity();
    Packet<T> top = pset1<Packet<T>>(minusInf);
    softmax_column_detail::forEachPacket(x, lo, hi, cols, minusInf, [&](int, const Packet<T>& v) {
        top = pmax(top, v);
        return true;
    });
    return lo < hi ? predux_max(top) : minusInf;
}

/// The shift for the scores x[lo .. hi): their largest, rounded up to a whole number, so that the
/// 2^x takes them as they are (takesScoresAsTheyAre) and a move of the shift rescales by a power
/// of two; -inf when every one is -inf.
template <class T>
T wholeShiftOver(const T* x, int lo, int hi, int cols) {
    return std::ceil(liveMax(x, lo, hi, cols));
}

/// How far a score may rise above the shift its query's weights are taken at (its largest score
/// when the shift last moved, rounded up) before the shift moves again: weights up to 2^8, far from
/// overflowing even summed over millions of keys. Most tiles after a query's first then leave its
/// shift where it is, with no pass for their maximum and nothing rescaled.
template <class T>
inline constexpr T kShiftSlack = T(8);

/// One tile of a query's online softmax. x[k] = 2^(x[k] - shift) for the keys in [0, cols),
/// added to the packet `sum`; exactly 0 where x[k] is -inf (Eigen's vectorised exp(-inf), which
/// double takes only without its own (AVX without AVX2), is not always 0: with AVX2 it is a
/// subnormal, so a blocked key would get a tiny weight, and the product with V the processor's slow
/// subnormal path, 4x slower on an AVX-512 Xeon), and also where x[k] - shift is at or below
/// kExp2Floor. `shift` is carried from the query's earlier tiles; -inf (none yet) takes this
/// tile's maximum, rounded up to a whole number (wholeShiftOver). A packet with a score above
/// shift + kShiftSlack moves the shift to the largest score from there on, rounded up: the weights
/// already written, `sum` and what the caller holds (`rescale(factor)`) are multiplied by
/// 2^(old shift - new shift), a power of two between whole shifts, 0 at or below the floor, each
/// product below the smallest normal number 0. Only whole packets over [lo, hi) are computed;
/// the rest of [0, cols) is set to 0.
template <class T, class Rescale>
void expAndSum(T* x, int lo, int hi, int cols, T& shift, Packet<T>& sum, Rescale&& rescale) {
    using namespace Eigen::internal;
    using namespace softmax_column_detail;
    constexpr T minusInf = -std::numeric_limits<T>::infinity();
    if (shift == minusInf) shift = wholeShiftOver(x, lo, hi, cols);
    const int from = lo / kLanes<T> * kLanes<T>;
    // The packets run in a loop without calls (no vector register survives a call): with the
    // move of the shift inside the loop, GCC kept the running sum in memory where the kernel-parts
    // bench inlined it, a store and a load in each packet's chain of additions (that bench's pass:
    // 69% of the peak against 78% without); the fused kernel kept it in a register either way.
    Packet<T> total = sum;
    int k = from;
    while (true) {
        // With no score yet (all -inf), every weight is 2^-inf = 0 and no score is above the
        // limit.
        const Packet<T> limit = pset1<Packet<T>>(shift + kShiftSlack<T>);
        k = withExp2AtShift(shift, [&](const auto& weightOf) {
            return forEachPacket(x, k, hi, cols, minusInf, [&](int at, const Packet<T>& v) {
                if (anyAbove(v, limit)) [[unlikely]]
                    return false;
                const Packet<T> e = weightOf(v);
                pstoreu(x + at, e);
                total = padd(total, e);
                return true;
            });
        });
        if (k >= hi) break;
        // Packet k has a score above the limit. The shift is finite here (a -inf shift has no
        // score above it), and it rises by more than the slack: the factor 2^(shift - raised) is
        // below 1, 0 at or below the floor.
        const T raised = wholeShiftOver(x, k, hi, cols), drop = shift - raised;
        const T factor = drop <= kExp2Floor<T> ? T(0) : std::exp2(drop);
        scaleWithoutSubnormals(x + from, k - from, factor);
        total = pmul(total, pset1<Packet<T>>(factor));
        rescale(factor);
        shift = raised;
    }
    sum = total;
    std::fill(x, x + from, T(0));
    if (k < cols) std::fill(x + k, x + cols, T(0));
}

/// Whether the fused kernel's score product exponentiates its tiles with ExpOfScores (below):
/// with AVX-512, where a register tile's 24 sums leave 8 of the 32 vector registers to the exp
/// (interleaved runs, dense n = 4096: 3.2% less wall time, 1.7% less CPU time); not with AVX2,
/// whose twelve sums leave 4 of 16 and where it took 5.6% longer than the second pass (dense
/// n = 4096, nine interleaved rounds). Unmeasured elsewhere, so not there either.
#if defined(__AVX512F__)
inline constexpr bool kExpInScoreProduct = true;
#else
inline constexpr bool kExpInScoreProduct = false;
#endif

/// The score product's finish (block_product.h) for a tile of a query block whose every key is
/// allowed and whose queries' shifts all takesScoresAsTheyAre (finite, whole: no branch per query
/// in the register tile, which took its AVX-512 part from 87% to 55% of the one-core peak in the
/// kernel-parts bench): each score s written as 2^(s - shift) and added to its query's sum
/// packet, as expAndSum would (the same bits), while the register tile's sums are still in
/// registers, rather than in a second pass over the tile. A query with a score above its shift
/// + kShiftSlack is marked in `raised` (marks are only ever added): what was written for it, its
/// weights and its sum, is then wrong (past x = 128 the 2^m step overflows) and must be
/// done again: its scores computed again, its sum restored, both through expAndSum, which moves
/// the shift. Rows are counted from the product's first query.
template <class T>
struct ExpOfScores {
    const T* shift; // each query's
    T* sums;        // each query's sum packet, kLanes<T> elements apart
    bool* raised;   // each query's mark

    ExpOfScores from(int r) const { return {shift + r, sums + r * kLanes<T>, raised + r}; }
    template <int R, int V>
    void operator()(const Packet<T> (&scores)[R][V], T* c, long ldc) const {
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
            row(r, scores[r], c + r * ldc);
    }

private:
    template <int V>
    void row(int r, const Packet<T> (&scores)[V], T* to) const {
        using namespace Eigen::internal;
        using namespace softmax_column_detail;
        static_assert(Exp2Steps<T>::own, "ExpOfScores takes the scores as they are");
        assert(takesScoresAsTheyAre(shift[r]));
        const Packet<T> limit = pset1<Packet<T>>(shift[r] + kShiftSlack<T>);
        const WholeShiftExp2<T> weightOf(shift[r]);
        T* const sum = sums + r * kLanes<T>;
        Packet<T> total = ploadu<Packet<T>>(sum);
        bool above = false;
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) {
            above = above | anyAbove(scores[v], limit);
            const Packet<T> e = weightOf(scores[v]);
            pstoreu(to + v * kLanes<T>, e);
            total = padd(total, e);
        }
        pstoreu(sum, total);
        raised[r] = raised[r] | above;
    }
};

} // namespace attnlab::kernels
