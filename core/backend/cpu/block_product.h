// SPDX-License-Identifier: GPL-3.0-or-later
// Inside the kernels: the register-blocked product both of the fused kernel's products run on,
// C += A·B with A and C row-major and B packed in strips of columns (Panel), in the widest
// vectors of the variant's instruction set (Eigen's packets: 16 floats with AVX-512, 8 with AVX2,
// 4 with SSE2 or NEON). A tile of rows of C times a few vectors of its columns stays in registers
// while the depth streams past.
//
// Each element of C is accumulated over the depth in order, one multiply-add at a time, whatever
// the number of rows or the width of the call: a row of C has the same bits when its query block
// is 64 rows or 128 (sweeps compare the first rows of a forward with the full one bit for bit).
// The fused kernel skips keys whose weights are 0 for a whole register tile, which keeps those
// bits as long as the values are finite (0·inf would not be 0).
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <type_traits>

namespace attnlab::kernels {

template <class T>
using Packet = typename Eigen::internal::packet_traits<T>::type;

/// Elements of T in one vector of the variant.
template <class T>
inline constexpr int kLanes = Eigen::internal::unpacket_traits<Packet<T>>::size;

/// Rows of C per register tile, and vectors of C's columns per tile: 6 x 4 with 32 vector
/// registers (AVX-512, NEON), 6 x 2 with 16 (24 accumulators would spill).
inline constexpr int kTileRows = 6;
#if defined(__AVX512F__) || defined(__aarch64__)
inline constexpr int kTileVectors = 4;
#else
inline constexpr int kTileVectors = 2;
#endif

/// A block product's default finish: a register tile's sums written to C (C = A·B), or added to
/// it (C += A·B). A finish is called as finish(sums, c, ldc): the tile's R x V packets of sums,
/// where its first element goes in C, and C's leading dimension; from(r) is the finish of the
/// product's rows from r (a finish that keeps something per row counts them from the product's
/// first).
template <class T>
struct StoreSums {
    bool accumulate;

    StoreSums from(int) const { return *this; }
    template <int R, int V>
    void operator()(const Packet<T> (&sums)[R][V], T* c, long ldc) const {
        using namespace Eigen::internal;
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v) {
                T* const at = c + r * ldc + v * kLanes<T>;
                pstoreu(at, accumulate ? padd(ploadu<Packet<T>>(at), sums[r][v]) : sums[r][v]);
            }
    }
};

namespace block_product_detail {

using Eigen::internal::padd;
using Eigen::internal::pload1;
using Eigen::internal::ploadu;
using Eigen::internal::pmadd;
using Eigen::internal::pset1;
using Eigen::internal::pstoreu;

// The sums of C[0..R) x [0..V vectors) over A[0..R) x [0..depth) · B[0..depth) x [0..V vectors),
// handed to `finish` as one tile (StoreSums: C = or += them). Each sum over the depth starts from 0
// (a blocked sum: error as Eigen's product, not that of one running sum over every key). The loops
// over R and V are unrolled completely, so that the accumulators are registers rather than an
// array in memory.
template <class T, int R, int V, class Finish>
inline void registerTile(int depth, const T* a, long lda, const T* b, long ldb, T* c, long ldc,
                         Finish finish) {
    constexpr int L = kLanes<T>;
    Packet<T> acc[R][V];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v)
            acc[r][v] = pset1<Packet<T>>(T(0));
    for (int k = 0; k < depth; ++k) {
        Packet<T> row[V];
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v)
            row[v] = ploadu<Packet<T>>(b + k * ldb + v * L);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const Packet<T> x = pload1<Packet<T>>(a + r * lda + k);
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v)
                acc[r][v] = pmadd(x, row[v], acc[r][v]);
        }
    }
    finish(acc, c, ldc);
}

// Calls f(std::integral_constant<int, count>()) for a count in 1 .. Most known at run time only
// (the remainder of rows or vectors a loop of whole tiles leaves); nothing for 0.
template <int Most, class F>
void withCount(int count, F&& f) {
    if constexpr (Most > 0) {
        if (count == Most)
            f(std::integral_constant<int, Most>());
        else
            withCount<Most - 1>(count, f);
    }
}

// Every row of C for one strip of V vectors of its columns: tiles of kTileRows rows, and the last
// rows in one or two tiles of about half as many each rather than a tile of one or two rows after
// the whole ones (one or two broadcasts per V multiply-adds: bound by the loads; 128 rows were
// 21 x 6 + 2). A call of one or two rows is still one such tile.
template <class T, int V, class Finish>
void strip(int rows, int depth, const T* a, long lda, const T* b, long ldb, T* c, long ldc,
           Finish finish) {
    const auto tile = [&](int r, auto count) {
        registerTile<T, decltype(count)::value, V>(depth, a + r * lda, lda, b, ldb, c + r * ldc,
                                                   ldc, finish.from(r));
    };
    int r = 0;
    for (; rows - r >= 2 * kTileRows; r += kTileRows)
        tile(r, std::integral_constant<int, kTileRows>());
    const int last = rows - r, first = last > kTileRows ? last / 2 : last; // last < 2 kTileRows
    withCount<kTileRows>(first, [&](auto count) { tile(r, count); });
    withCount<kTileRows>(last - first, [&](auto count) { tile(r + first, count); });
}

} // namespace block_product_detail

/// The B of a block product as its packers lay it out (packed_head.h): its columns (whole
/// vectors) in strips of kStripWidth, the last one narrower when they do not divide; each
/// strip a row-major block of every row of B times that strip's columns. A register tile then
/// reads one contiguous strip, rather than every row of B a whole row apart (measured with AVX2,
/// where a strip is a quarter of a 64-wide row: about a tenth faster, each product).
template <class T>
struct Panel {
    /// Columns per strip: one register tile's width.
    static constexpr int kStripWidth = kTileVectors * kLanes<T>;

    const T* data;    // strip 0, row 0
    long stripStride; // elements from one strip's start to the next's
    int width;        // columns, a multiple of kLanes<T>

    /// Columns of strip s.
    int stripWidth(int s) const { return std::min(kStripWidth, width - s * kStripWidth); }
    /// Where element (row, column) of B is, in elements from `data` (packers write there).
    long offset(long row, int column) const {
        const int s = column / kStripWidth;
        return s * stripStride + row * stripWidth(s) + column % kStripWidth;
    }
    /// Element (row, column) of B.
    const T* at(long row, int column) const { return data + offset(row, column); }
};

/// The product of A (rows x depth) and B (rows k0 .. k0 + depth - 1 of the panel, the columns
/// [v0·L, v1·L)), handed to `finish` (L = kLanes<T>); A and C row-major with leading dimensions
/// lda and ldc, c at C's column v0·L. The columns go by in order, a strip at a time.
template <class T, class Finish>
void blockProduct(int rows, int depth, const T* a, long lda, const Panel<T>& b, long k0, int v0,
                  int v1, T* c, long ldc, Finish finish) {
    using namespace block_product_detail;
    constexpr int L = kLanes<T>;
    for (int v = v0; v < v1;) { // the vectors of one strip at a time
        const int s = v / kTileVectors, vectors = std::min(kTileVectors * (s + 1), v1) - v;
        const long ldb = b.stripWidth(s);
        const T* from = b.at(k0, v * L);
        T* to = c + (v - v0) * L;
        withCount<kTileVectors>(vectors, [&](auto count) {
            strip<T, decltype(count)::value>(rows, depth, a, lda, from, ldb, to, ldc, finish);
        });
        v += vectors;
    }
}

/// C = A·B, or C += A·B when `accumulate` (blockProduct with StoreSums).
template <class T>
void blockProduct(bool accumulate, int rows, int depth, const T* a, long lda, const Panel<T>& b,
                  long k0, int v0, int v1, T* c, long ldc) {
    blockProduct(rows, depth, a, lda, b, k0, v0, v1, c, ldc, StoreSums<T>{accumulate});
}

/// n rounded up to whole vectors of T.
template <class T>
constexpr int paddedToLanes(int n) {
    return (n + kLanes<T> - 1) / kLanes<T> * kLanes<T>;
}

} // namespace attnlab::kernels
