// Inside the kernels: a column-major block copied transposed (and scaled) in square tiles of one
// vector's lanes, each transposed in registers (Eigen's ptranspose): the kernels turn Q and V
// into rows and their output rows back into columns with it. Element by element, a transposed
// copy reads or writes one element per cache line and was a fifth of the windowed kernel's time.
#pragma once

#include "core/backend/cpu/block_product.h"

namespace attnlab::kernels {

/// dst[j + i·ldd] = s_j · src[i + j·lds] for i < rows, j < cols: the rows x cols column-major
/// block at src, transposed into the cols x rows column-major block at dst, with s_j = scale, or
/// columnScales[j] where given (the output's normalisation, one per query). Each element is the
/// one product s_j · src, so a scale of 1 copies bits.
template <class T>
void copyTransposed(int rows, int cols, const T* src, long lds, T* dst, long ldd, T scale = T(1),
                    const T* columnScales = nullptr) {
    using namespace Eigen::internal;
    constexpr int L = kLanes<T>;
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
                for (int r = 0; r < L; ++r)
                    pstoreu(dst + j + (i + r) * ldd, tile.packet[r]);
            }
            for (; i < rows; ++i)
                for (int c = j; c < j + L; ++c)
                    dst[c + i * ldd] = scaleOf(c) * src[i + c * lds];
        }
    }
    for (; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            dst[j + i * ldd] = scaleOf(j) * src[i + j * lds];
}

} // namespace attnlab::kernels
