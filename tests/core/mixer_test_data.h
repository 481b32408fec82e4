// SPDX-License-Identifier: GPL-3.0-or-later
// Test data shared by the mixer tests: deterministic exact and double matrices, an ALiBi-like
// bias, mixer and mask shorthands.
#pragma once

#include "core/backend/head_forward.h"
#include "core/spec/mask.h"
#include "core/test_support.h"

#include <QMetaType>
#include <QStringList>

#include <cmath>
#include <optional>

Q_DECLARE_METATYPE(attnlab::MaskSpec)
Q_DECLARE_METATYPE(attnlab::MixerSpec)
Q_DECLARE_METATYPE(attnlab::MixerSpec::Kind)

namespace attnlab::test {
// Deterministic exact test data with mixed signs and denominators.
inline Matrix<Rational> exactData(int rows, int cols, int seed) {
    Matrix<Rational> m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            Rational x((i * 3 + j * 5 + seed * 7) % 9 - 4, 1 + (i + j + seed) % 3);
            x.canonicalize();
            m(i, j) = x;
        }
    return m;
}

// Deterministic double test data in [-2, 2].
inline Eigen::MatrixXd doubleData(int rows, int cols, int seed) {
    Eigen::MatrixXd m(rows, cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            m(i, j) = 2 * std::sin(0.9 * (seed + 1) + 1.3 * i + 2.1 * j * j);
    return m;
}

// An ALiBi-like exact bias -|s - t|/2.
inline Matrix<Rational> exactBias(int n) {
    Matrix<Rational> b(n, n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t) {
            b(s, t) = Rational(-std::abs(s - t), 2);
            b(s, t).canonicalize(); // GMP arithmetic needs canonical operands
        }
    return b;
}

inline MixerSpec mixer(MixerSpec::Kind kind, std::optional<Rational> scale = std::nullopt) {
    MixerSpec spec;
    spec.kind = kind;
    spec.scale = std::move(scale);
    return spec;
}

inline MixerSpec ssm(const char* a, bool bidirectional) {
    MixerSpec spec;
    spec.kind = MixerSpec::Kind::Ssm;
    spec.a = parseRational(a);
    spec.bidirectional = bidirectional;
    return spec;
}

// A custom mask from rows of '0'/'1'.
inline MaskSpec customMask(const QStringList& rows) {
    BoolMatrix m(rows.size(), rows.size());
    for (int s = 0; s < rows.size(); ++s)
        for (int t = 0; t < rows.size(); ++t)
            m(s, t) = rows[s][t] == '1';
    return MaskSpec::custom(m);
}

inline double maxAbs(const Eigen::MatrixXd& m) {
    return m.size() ? m.cwiseAbs().maxCoeff() : 0.0;
}
} // namespace attnlab::test
