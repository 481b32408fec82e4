// SPDX-License-Identifier: GPL-3.0-or-later
// What the gpu tests share: deterministic inputs, the mixers every backend is compared on, and
// the deviation they are judged by.
//
// Tolerance: |backend - cpu| <= tol · (1 + max|cpu|) entrywise, tol = 1e-4 in float32 and
// 1e-10 in float64 (n ≤ 70, head widths 6 and 5: reassociated sums of that length).
#pragma once

#include "core/base/scalar.h"
#include "core/spec/mixer.h"

#include <cmath>
#include <vector>

namespace attnlab::test {

template <class T>
Matrix<T> data(int rows, int cols, int seed) {
    Matrix<T> m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = T(std::sin(0.7 * (seed + 1) + 1.3 * i + 2.1 * j * j));
    return m;
}

inline std::vector<MixerSpec> mixers() {
    std::vector<MixerSpec> list;
    for (auto kind : {MixerSpec::Kind::Softmax, MixerSpec::Kind::SoftmaxLike, MixerSpec::Kind::Raw})
        for (int tile : {0, 5, 16}) {
            MixerSpec m;
            m.kind = kind;
            m.tile = tile;
            list.push_back(m);
        }
    for (bool bidirectional : {false, true}) {
        MixerSpec m;
        m.kind = MixerSpec::Kind::Ssm;
        m.a = bidirectional ? Rational(1) : Rational(9, 10);
        m.bidirectional = bidirectional;
        list.push_back(m);
    }
    return list;
}

// Largest entrywise |a - b| relative to 1 + max|b|; infinity on a shape mismatch.
template <class T>
double deviation(const Matrix<T>& a, const Matrix<T>& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    if (b.size() == 0) return 0;
    const double scale = 1 + double(b.cwiseAbs().maxCoeff());
    return double((a - b).cwiseAbs().maxCoeff()) / scale;
}

template <class T>
constexpr double tolerance() {
    return std::is_same_v<T, float> ? 1e-4 : 1e-10;
}

} // namespace attnlab::test
