// SPDX-License-Identifier: GPL-3.0-or-later
// Inside the kernels: a column-major block copied transposed (and scaled) in square tiles of one
// vector's lanes, each transposed in registers (Eigen's ptranspose): the kernels turn Q and V
// into rows and their output rows back into columns with it. Element by element, a transposed
// copy reads or writes one element per cache line and was a fifth of the windowed kernel's time.
#pragma once

#include "core/backend/cpu/block_product.h"

#include <cstdint>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace attnlab::kernels {

namespace transposed_copy_detail {

// Non-temporal stores (past the caches: the line is neither read first nor kept) of x86's packets,
// SSE2 to AVX-512; other instruction sets store through the caches.
#if defined(__SSE2__)
inline constexpr bool kStreams = true;
#else
inline constexpr bool kStreams = false;
#endif

inline constexpr long kLineBytes = 64;

// Packets of T in one cache line: a streamed copy writes a line with that many consecutive
// stores, so that the processor's write-combining buffer sends it whole.
template <class T>
inline constexpr int kPacketsPerLine = int(kLineBytes / long(sizeof(Packet<T>)));

// The stores themselves, one per packet type of the instruction set (Eigen's packets are the
// intrinsic types); any other packet type fails to compile.
template <class T, class P>
void storePastCaches(T*, const P&) {
    static_assert(sizeof(P) == 0, "no non-temporal store of this packet");
}
#if defined(__AVX512F__)
inline void storePastCaches(float* to, __m512 p) {
    _mm512_stream_ps(to, p);
}
inline void storePastCaches(double* to, __m512d p) {
    _mm512_stream_pd(to, p);
}
#endif
#if defined(__AVX__)
inline void storePastCaches(float* to, __m256 p) {
    _mm256_stream_ps(to, p);
}
inline void storePastCaches(double* to, __m256d p) {
    _mm256_stream_pd(to, p);
}
#endif
#if defined(__SSE2__)
inline void storePastCaches(float* to, __m128 p) {
    _mm_stream_ps(to, p);
}
inline void storePastCaches(double* to, __m128d p) {
    _mm_stream_pd(to, p);
}
#endif

// The scale of each column of src: one for all, or one each.
template <class T>
struct ColumnScales {
    T all;
    const T* each; // or null
    T operator()(int j) const { return each ? each[j] : all; }
    // Those of columns j .. j + kLanes<T> - 1.
    Packet<T> packet(int j) const {
        return each ? Eigen::internal::ploadu<Packet<T>>(each + j)
                    : Eigen::internal::pset1<Packet<T>>(all);
    }
};

// copyTransposed's square tiles, for the strips of P·L columns from column j while whole ones
// fit (L = kLanes<T>); returns the column after the last. Each tile is transposed in registers and
// then scaled: its lanes are then columns, so one packet holds their scales (rather than a packet
// per column, L registers). With P > 1 the P tiles of a strip are transposed first and each row of
// dst is then written by P consecutive stores (a whole line, when streamed).
template <class T, int P, bool Streamed>
int copyStrips(int j, int rows, int cols, const T* src, long lds, T* dst, long ldd,
               const ColumnScales<T>& scales) {
    using namespace Eigen::internal;
    constexpr int L = kLanes<T>;
    for (; j + P * L <= cols; j += P * L) { // a strip of P·L columns, down all its rows
        Packet<T> by[P];
        for (int p = 0; p < P; ++p)
            by[p] = scales.packet(j + p * L);
        int i = 0;
        for (; i + L <= rows; i += L) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes" // as in Eigen's own PacketBlock<__m256, 8>
            PacketBlock<Packet<T>, L> tiles[P]; // packet[c]: column j + p·L + c, rows i .. i + L
#pragma GCC diagnostic pop
            for (int p = 0; p < P; ++p) {
                for (int c = 0; c < L; ++c)
                    tiles[p].packet[c] = ploadu<Packet<T>>(src + i + (j + p * L + c) * lds);
                ptranspose(tiles[p]); // now packet[r]: row i + r, columns j + p·L .. + L
            }
            for (int r = 0; r < L; ++r)
                for (int p = 0; p < P; ++p) {
                    T* const to = dst + j + p * L + (i + r) * ldd;
                    const Packet<T> scaled = pmul(by[p], tiles[p].packet[r]);
                    if constexpr (Streamed)
                        storePastCaches(to, scaled);
                    else
                        pstoreu(to, scaled);
                }
        }
        for (; i < rows; ++i)
            for (int c = j; c < j + P * L; ++c)
                dst[c + i * ldd] = scales(c) * src[i + c * lds];
    }
    return j;
}

} // namespace transposed_copy_detail

/// dst[j + i·ldd] = s_j · src[i + j·lds] for i < rows, j < cols: the rows x cols column-major
/// block at src, transposed into the cols x rows column-major block at dst, with s_j = scale, or
/// columnScales[j] where given (the output's normalisation, one per query). Each element is the
/// one product s_j · src, so a scale of 1 copies bits. `pastCaches` asks for non-temporal stores
/// of dst, for a destination larger than the caches that nothing reads soon (a long sequence's
/// output, each query block's rows of every feature column): they are used on x86 where dst's
/// columns start on cache lines (dst and ldd·sizeof(T) multiples of 64 bytes: n a multiple of 16
/// floats or 8 doubles, and a query block starting on one), for the columns in whole lines, and
/// end with a store fence. Elsewhere dst is written through the caches.
template <class T>
void copyTransposed(int rows, int cols, const T* src, long lds, T* dst, long ldd, T scale = T(1),
                    const T* columnScales = nullptr, bool pastCaches = false) {
    using namespace transposed_copy_detail;
    const ColumnScales<T> scales{scale, columnScales};
    const bool streamed = kStreams && pastCaches &&
                          reinterpret_cast<std::uintptr_t>(dst) % kLineBytes == 0 &&
                          ldd * long(sizeof(T)) % kLineBytes == 0;
    constexpr int L = kLanes<T>;
    int j = 0;
    if constexpr (L > 1) {
        if constexpr (kStreams)
            if (streamed)
                j = copyStrips<T, kPacketsPerLine<T>, true>(j, rows, cols, src, lds, dst, ldd,
                                                            scales);
        j = copyStrips<T, 1, false>(j, rows, cols, src, lds, dst, ldd, scales);
    }
    for (; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            dst[j + i * ldd] = scales(j) * src[i + j * lds];
#if defined(__SSE2__)
    if (streamed) _mm_sfence(); // the streamed lines before any later store, for other threads
#endif
}

} // namespace attnlab::kernels
