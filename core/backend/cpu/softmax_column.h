// Inside the kernels: the online softmax's two passes over one query's scores in a tile, on
// whole packets (block_product.h). The column is padded to whole vectors; entries in [0, cols)
// are scores or -inf (blocked), entries past cols are not keys.
#pragma once

#include "core/backend/cpu/block_product.h"

#include <algorithm>
#include <limits>

namespace attnlab::kernels {

namespace softmax_column_detail {

// The packet of x at k, its lanes at or past `cols` replaced by `outside`.
template <class T>
Packet<T> keysAt(const T* x, int k, int cols, const Packet<T>& outside) {
    using namespace Eigen::internal;
    const Packet<T> v = ploadu<Packet<T>>(x + k);
    if (k + kLanes<T> <= cols) return v;
    const Packet<T> isKey = pcmp_lt(plset<Packet<T>>(T(k)), pset1<Packet<T>>(T(cols)));
    return pselect(isKey, v, outside);
}

} // namespace softmax_column_detail

/// The largest score among x[lo .. hi) (-inf when none): every entry outside it is -inf, so
/// whole packets from the one holding lo are read.
template <class T>
T liveMax(const T* x, int lo, int hi, int cols) {
    using namespace Eigen::internal;
    constexpr T minusInf = -std::numeric_limits<T>::infinity();
    Packet<T> top = pset1<Packet<T>>(minusInf);
    for (int k = lo / kLanes<T> * kLanes<T>; k < hi; k += kLanes<T>)
        top = pmax(top, softmax_column_detail::keysAt(x, k, cols, pset1<Packet<T>>(minusInf)));
    return lo < hi ? predux_max(top) : minusInf;
}

/// x[k] = exp(x[k] - shift) for the keys in [0, cols), exactly 0 where x[k] is -inf (Eigen's
/// vectorised exp(-inf) is not always 0: with AVX2 it is a subnormal, so a blocked key would get
/// a tiny weight, and the product with V the processor's slow subnormal path, 4x slower on an
/// AVX-512 Xeon); returns their sum.
/// Only whole packets over [lo, hi) are computed (inside select, or at the ends of an unaligned
/// segment, Eigen's exp calls libm's scalar expf); the rest of [0, cols) is set to 0.
template <class T>
T expAndSum(T* x, int lo, int hi, int cols, T shift) {
    using namespace Eigen::internal;
    const Packet<T> by = pset1<Packet<T>>(shift), zero = pset1<Packet<T>>(T(0)),
                    minusInf = pset1<Packet<T>>(-std::numeric_limits<T>::infinity());
    const int from = lo / kLanes<T> * kLanes<T>;
    int k = from;
    Packet<T> sum = zero;
    for (; k < hi; k += kLanes<T>) {
        const Packet<T> v = softmax_column_detail::keysAt(x, k, cols, minusInf);
        const Packet<T> e = pselect(pcmp_eq(v, minusInf), zero, pexp(psub(v, by)));
        pstoreu(x + k, e);
        sum = padd(sum, e);
    }
    std::fill(x, x + from, T(0));
    if (k < cols) std::fill(x + k, x + cols, T(0));
    return predux(sum);
}

} // namespace attnlab::kernels
