// SPDX-License-Identifier: GPL-3.0-or-later
// One head's forward maths: weights, tiled evaluation and the state-space scan, in each scalar
// type.
#include "core/backend/head_forward.h"

#include "core/base/cancellation.h"
#include "core/base/error.h"
#include "core/base/row_block_product.h"
#include "core/spec/mask.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace attnlab {

template <class T>
T mixerScale(const MixerSpec& spec, int p) {
    if (spec.scale) return ScalarOps<T>::fromRational(*spec.scale);
    if (spec.kind != MixerSpec::Kind::Softmax) return T(1);
    return T(1) / ScalarOps<T>::sqrt(T(std::max(p, 1)), "the default softmax scale 1/sqrt(p)");
}

namespace {

// The unnormalised weight of one allowed score and whether the mixer normalises rows.
template <class T>
T unnormalised(MixerSpec::Kind kind, const T& score, const T& rowMax) {
    switch (kind) {
    case MixerSpec::Kind::Softmax:
        return ScalarOps<T>::exp(score - rowMax, "mixer softmax");
    case MixerSpec::Kind::SoftmaxLike:
        return T(1) + relu(score);
    default:
        return score;
    }
}

bool normalises(MixerSpec::Kind kind) {
    return kind != MixerSpec::Kind::Raw;
}

// Softmax weights in float or double: each row's exp(S - its allowed maximum) over the allowed
// entries, divided by their sum, whole columns at a time (the matrices are column-major). Inside
// select the exp is libm's, entry by entry; taking it vectorised over every entry first, and the
// mask after, measured slower (attnlab-check-bench). All-masked rows are 0; a row whose sum is
// NaN (a NaN or infinite score) is NaN, as a division by its sum makes it. A weight below the
// smallest normal number is 0, as in the fused kernel: subnormal weights made every product
// with them (the maps, the derivative passes) take the processor's slow path, and the gradient
// check at n = 256 took 19 ms instead of 9 (attnlab-check-bench, x86-64-v3).
template <class T>
Matrix<T> softmaxWeights(const Matrix<T>& scores, const BoolMatrix& mask) {
    using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
    const Column rowMax =
        mask.select(scores, -std::numeric_limits<T>::infinity()).rowwise().maxCoeff().array();
    Matrix<T> weights = mask.select((scores.array().colwise() - rowMax).exp().matrix(), T(0));
    const Column total = weights.rowwise().sum().array();
    weights.array().colwise() *= (total != T(0)).select(total.inverse(), T(0)); // NaN stays
    weights = (weights.array() < std::numeric_limits<T>::min()).select(T(0), weights);
    return weights;
}

} // namespace

template <class T>
Matrix<T> mixWeights(const MixerSpec& spec, const Matrix<T>& scores, const BoolMatrix& mask) {
    if constexpr (std::is_floating_point_v<T>)
        if (spec.kind == MixerSpec::Kind::Softmax) return softmaxWeights(scores, mask);
    const auto n = scores.rows(), m = scores.cols();
    Matrix<T> weights = Matrix<T>::Zero(n, m);
    for (Eigen::Index s = 0; s < n; ++s) {
        pollCancellation();
        if (!mask.row(s).any()) continue; // all-masked row: zero, reported by the caller
        T total = T(0);
        for (Eigen::Index t = 0; t < m; ++t)
            if (mask(s, t)) {
                // Softmax reaches here only in exact mode, where exp refuses: no row maximum.
                weights(s, t) = unnormalised(spec.kind, T(scores(s, t)), T(0));
                total += weights(s, t);
            }
        if (normalises(spec.kind)) weights.row(s) /= total;
    }
    return weights;
}

template <class T>
Matrix<T> tiledOutput(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k,
                      const Matrix<T>& v, const Matrix<T>* bias, const BoolMatrix& mask, int tile) {
    const auto n = q.rows(), keys = k.rows(), pv = v.cols();
    if (tile < 1) throw InputError("tile: must be a positive integer");
    const T c = mixerScale<T>(spec, static_cast<int>(q.cols()));
    const bool softmax = spec.kind == MixerSpec::Kind::Softmax;
    Matrix<T> acc = Matrix<T>::Zero(n, pv); // Σ w_t·V[t]
    Vector<T> total = Vector<T>::Zero(n);   // Σ w_t
    Vector<T> runningMax = Vector<T>::Zero(n);
    std::vector<bool> seen(static_cast<std::size_t>(n), false);
    for (Eigen::Index start = 0; start < keys; start += tile) {
        pollCancellation();
        const Eigen::Index len = std::min<Eigen::Index>(tile, keys - start);
        Matrix<T> s = c * (q * k.middleRows(start, len).transpose());
        if (bias) s += bias->middleCols(start, len);
        for (Eigen::Index row = 0; row < n; ++row) {
            const auto allowed = mask.row(row).segment(start, len);
            if (!allowed.any()) continue;
            if (softmax) { // running max with rescaling of what was accumulated so far
                T tileMax = T(0);
                bool first = true;
                for (Eigen::Index t = 0; t < len; ++t)
                    if (allowed(t) && (first || s(row, t) > tileMax)) {
                        tileMax = s(row, t);
                        first = false;
                    }
                if (!seen[std::size_t(row)] || tileMax > runningMax(row)) {
                    if (seen[std::size_t(row)]) {
                        const T rescale =
                            ScalarOps<T>::exp(runningMax(row) - tileMax, "mixer softmax");
                        acc.row(row) *= rescale;
                        total(row) *= rescale;
                    }
                    runningMax(row) = tileMax;
                }
            }
            seen[std::size_t(row)] = true;
            for (Eigen::Index t = 0; t < len; ++t) {
                if (!allowed(t)) continue;
                const T w = unnormalised(spec.kind, T(s(row, t)), T(runningMax(row)));
                acc.row(row) += w * v.row(start + t);
                total(row) += w;
            }
        }
    }
    if (normalises(spec.kind))
        for (Eigen::Index row = 0; row < n; ++row)
            if (seen[std::size_t(row)]) acc.row(row) /= total(row);
    return acc;
}

template <class T>
Matrix<T> ssmWeights(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k) {
    const auto n = q.rows();
    const T a = ScalarOps<T>::fromRational(spec.a);
    const Matrix<T> qk = q * k.transpose();
    Matrix<T> weights = Matrix<T>::Zero(n, n);
    for (Eigen::Index s = 0; s < n; ++s)
        for (Eigen::Index t = 0; t < n; ++t) {
            if (!spec.bidirectional && t > s) continue;
            const T decay = integerPower(a, static_cast<long>(std::abs(s - t)));
            weights(s, t) = (spec.bidirectional && s == t ? T(2) : T(1)) * decay * qk(s, t);
        }
    return weights;
}

namespace {

// Causal scan y[s] = Q[s]·Σ_{t≤s} a^(s-t)·K[t]ᵀV[t], recurrent (chunk = 0) or chunkwise.
template <class T>
Matrix<T> causalScan(const T& a, const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                     int chunk) {
    const auto n = q.rows();
    Matrix<T> y(n, v.cols());
    Matrix<T> state = Matrix<T>::Zero(k.cols(), v.cols());
    if (chunk <= 0) {
        for (Eigen::Index s = 0; s < n; ++s) {
            state = a * state + k.row(s).transpose() * v.row(s);
            y.row(s) = q.row(s) * state;
        }
        return y;
    }
    for (Eigen::Index start = 0; start < n; start += chunk) {
        const Eigen::Index len = std::min<Eigen::Index>(chunk, n - start);
        const auto qc = q.middleRows(start, len), kc = k.middleRows(start, len),
                   vc = v.middleRows(start, len);
        // Local prefix inside the chunk: decayed causal weights.
        Matrix<T> local = qc * kc.transpose();
        Matrix<T> carryIn(len, v.cols());
        for (Eigen::Index i = 0; i < len; ++i) {
            for (Eigen::Index j = 0; j < len; ++j)
                local(i, j) = j <= i ? T(local(i, j) * integerPower(a, long(i - j))) : T(0);
            carryIn.row(i) = integerPower(a, long(i + 1)) * (qc.row(i) * state);
        }
        y.middleRows(start, len) = local * vc + carryIn;
        // carry' = a^len·carry + Σ_t a^(len-1-t)·K[t]ᵀV[t]
        Matrix<T> update = Matrix<T>::Zero(k.cols(), v.cols());
        for (Eigen::Index t = 0; t < len; ++t)
            update += integerPower(a, long(len - 1 - t)) * (kc.row(t).transpose() * vc.row(t));
        state = integerPower(a, long(len)) * state + update;
    }
    return y;
}

template <class T>
Matrix<T> reversedRows(const Matrix<T>& m) {
    return m.colwise().reverse();
}

} // namespace

template <class T>
Matrix<T> ssmScan(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                  int chunk) {
    const T a = ScalarOps<T>::fromRational(spec.a);
    Matrix<T> y = causalScan(a, q, k, v, chunk);
    if (spec.bidirectional) // backward scan over t = n-1..s: the causal scan of the reversal
        y += reversedRows<T>(
            causalScan(a, reversedRows(q), reversedRows(k), reversedRows(v), chunk));
    return y;
}

/// c · Q Kᵀ. In floating point as Eigen evaluates `c * (q * kᵀ)`, the expression the tiled
/// output uses too: the same rounding. Exact, with the queries scaled first (n·p products of the
/// scale rather than n²) and in row blocks a cancel stops between.
template <class T>
Matrix<T> scaledScores(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k) {
    const T c = mixerScale<T>(spec, static_cast<int>(q.cols()));
    if constexpr (std::is_floating_point_v<T>)
        return c * (q * k.transpose());
    else
        return rowBlockProduct<T>(Matrix<T>(c * q), k.transpose());
}

template <class T>
HeadResult<T> attendHead(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k,
                         const Matrix<T>& v, const Matrix<T>* bias, const BoolMatrix& mask) {
    HeadResult<T> r;
    if (spec.kind == MixerSpec::Kind::Ssm) {
        r.scores = q * k.transpose();
        r.weights = ssmWeights(spec, q, k);
        r.output = ssmScan(spec, q, k, v, spec.chunk);
        return r;
    }
    r.scores = scaledScores(spec, q, k);
    if (bias) r.scores += *bias;
    r.weights = mixWeights(spec, r.scores, mask);
    r.output = spec.tile > 0 ? tiledOutput(spec, q, k, v, bias, mask, spec.tile)
                             : rowBlockProduct<T>(r.weights, v);
    r.allMaskedRows = allMaskedRows(mask);
    return r;
}

template <class T>
HeadResult<T> attendHeadUnmasked(const MixerSpec& spec, const Matrix<T>& q, const Matrix<T>& k,
                                 const Matrix<T>& v, const Matrix<T>* bias) {
    if (spec.kind == MixerSpec::Kind::Ssm)
        return attendHead(spec, q, k, v, bias, BoolMatrix::Constant(q.rows(), k.rows(), true));
    HeadResult<T> r;
    r.scores = scaledScores(spec, q, k);
    if (bias) r.scores += *bias;
    Matrix<T> w(r.scores.rows(), r.scores.cols());
    for (Eigen::Index s = 0; s < w.rows(); ++s) {
        pollCancellation();
        const T rowMax =
            spec.kind == MixerSpec::Kind::Softmax ? T(r.scores.row(s).maxCoeff()) : T(0);
        for (Eigen::Index t = 0; t < w.cols(); ++t)
            w(s, t) = unnormalised(spec.kind, T(r.scores(s, t)), rowMax);
        if (normalises(spec.kind)) w.row(s) /= T(w.row(s).sum());
    }
    r.weights = std::move(w);
    r.output = rowBlockProduct<T>(r.weights, v);
    return r;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template T mixerScale<T>(const MixerSpec&, int);                                               \
    template Matrix<T> mixWeights<T>(const MixerSpec&, const Matrix<T>&, const BoolMatrix&);       \
    template Matrix<T> tiledOutput<T>(const MixerSpec&, const Matrix<T>&, const Matrix<T>&,        \
                                      const Matrix<T>&, const Matrix<T>*, const BoolMatrix&, int); \
    template Matrix<T> ssmWeights<T>(const MixerSpec&, const Matrix<T>&, const Matrix<T>&);        \
    template Matrix<T> ssmScan<T>(const MixerSpec&, const Matrix<T>&, const Matrix<T>&,            \
                                  const Matrix<T>&, int);                                          \
    template HeadResult<T> attendHead<T>(const MixerSpec&, const Matrix<T>&, const Matrix<T>&,     \
                                         const Matrix<T>&, const Matrix<T>*, const BoolMatrix&);   \
    template HeadResult<T> attendHeadUnmasked<T>(                                                  \
        const MixerSpec&, const Matrix<T>&, const Matrix<T>&, const Matrix<T>&, const Matrix<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
// A variant of the CPU kernels (cmake/CpuKernels.cmake) runs only float and double; the exact
// mixer is compiled once, in the backend library (a third of this file's compile time per variant).
#ifndef ATTNLAB_CPU_VARIANT
ATTNLAB_INSTANTIATE(Rational)
#endif
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
