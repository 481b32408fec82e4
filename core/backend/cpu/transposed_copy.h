// Inside the kernels: a column-major block copied transposed (and scaled) in square tiles of one
// vector's lanes, each transposed in registers (Eigen's ptranspose): the kernels turn Q and V
// into rows and their output rows back into columns with it. Element by element, a transposed
// copy reads or writes one element per cache line and was a fifth of the windowed kernel's time.
#pragma once

#include "core/backend/cpu/block_product.h"

#include <cstdint>
#include <type_traits>

namespace attnlab::kernels {

namespace transposed_copy_detail {

// Whether storePastCaches writes a whole cache line at a time: a vector of 64 bytes (AVX-512).
template <class T>
inline constexpr bool kStoresWholeLines =
#if defined(__AVX512F__)
    sizeof(Packet<T>) == 64;
#else
    false;
#endif

// Stores p at `to`, a cache line's start, past the caches (a non-temporal store: the line is
// neither read first nor kept), where kStoresWholeLines<T>.
template <class T>
void storePastCaches(T* to, const Packet<T>& p) {
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, float>)
        _mm512_stream_ps(to, p);
    else
        _mm512_stream_pd(to, p);
#else
    static_assert(!kStoresWholeLines<T>, "no whole-line stores without AVX-512");
    (void)to, (void)p;
#endif
}

} // namespace transposed_copy_detail

/// dst[j + i·ldd] = s_j · src[i + j·lds] for i < rows, j < cols: the rows x cols column-major
/// block at src, transposed into the cols x rows column-major block at dst, with s_j = scale, or
/// columnScales[j] where given (the output's normalisation, one per query). Each element is the
/// one product s_j · src, so a scale of 1 copies bits. `pastCaches` asks for non-temporal stores
/// of dst, for a destination larger than the caches that nothing reads soon (a long sequence's
/// output, written 64 columns at a time): they are used where a vector is a whole cache line and
/// dst's columns start on one (AVX-512, ldd and dst aligned), and end with a store fence.
template <class T>
void copyTransposed(int rows, int cols, const T* src, long lds, T* dst, long ldd, T scale = T(1),
                    const T* columnScales = nullptr, bool pastCaches = false) {
    using namespace Eigen::internal;
    using namespace transposed_copy_detail;
    constexpr int L = kLanes<T>;
    constexpr long kLine = 64;
    const bool streamed = kStoresWholeLines<T> && pastCaches &&
                          reinterpret_cast<std::uintptr_t>(dst) % kLine == 0 &&
                          ldd * long(sizeof(T)) % kLine == 0;
    const auto scaleOf = [&](int j) { return columnScales ? columnScales[j] : scale; };
    int j = 0;
    if constexpr (L > 1) {
        for (; j + L <= cols; j += L) { // a strip of L columns, down all its rows
            Packet<T> by[L];
            for (int c = 0; c < L; ++c)
                by[c] = pset1<Packet<T>>(scaleOf(j + c));
            int i = 0;
            for (; i + L <= rows; i += L) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes" // as in Eigen's own PacketBlock<__m256, 8>
                PacketBlock<Packet<T>, L> tile; // tile.packet[c]: column j + c, rows i .. i + L
#pragma GCC diagnostic pop
                for (int c = 0; c < L; ++c)
                    tile.packet[c] = pmul(by[c], ploadu<Packet<T>>(src + i + (j + c) * lds));
                ptranspose(tile); // now tile.packet[r]: row i + r, columns j .. j + L
                for (int r = 0; r < L; ++r) {
                    T* const to = dst + j + (i + r) * ldd;
                    if constexpr (kStoresWholeLines<T>)
                        if (streamed) {
                            storePastCaches(to, tile.packet[r]);
                            continue;
                        }
                    pstoreu(to, tile.packet[r]);
                }
            }
            for (; i < rows; ++i)
                for (int c = j; c < j + L; ++c)
                    dst[c + i * ldd] = scaleOf(c) * src[i + c * lds];
        }
    }
    for (; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            dst[j + i * ldd] = scaleOf(j) * src[i + j * lds];
#if defined(__SSE__)
    if (streamed) _mm_sfence(); // the streamed lines before any later store, for other threads
#endif
}

} // namespace attnlab::kernels
