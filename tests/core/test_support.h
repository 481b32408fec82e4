// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the core tests: exact matrices written as text, the message of the
// InputError a call throws, and bit-for-bit comparison of matrices.
#pragma once

#include "core/base/error.h"
#include "core/base/scalar.h"
#include "core/spec/model_spec.h"

#include <QString>
#include <QStringList>

#include <cstring>
#include <type_traits>

namespace attnlab::test {

/// Deterministic exact n x d tokens with mixed signs (so relu matters): entry (i, j) is
/// ((5i + 3j) mod 7 − 3) / (1 + (i + 2j) mod denominators).
inline Matrix<Rational> mixedTokens(int n, int d, int denominators) {
    Matrix<Rational> m(n, d);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j) {
            Rational x((i * 5 + j * 3) % 7 - 3, 1 + (i + 2 * j) % denominators);
            x.canonicalize();
            m(i, j) = x;
        }
    return m;
}

/// A model of these positions and layers and nothing else (no norms, no checkpoint).
inline ModelSpec modelOf(PositionalSpec positional, std::vector<LayerSpec> layers) {
    ModelSpec model;
    model.positional = std::move(positional);
    model.layers = std::move(layers);
    return model;
}

/// Whether a and b have the same shape and bits (== would take -0 for +0, and fails on NaN).
template <class A, class B>
bool sameBits(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
    using T = typename A::Scalar;
    static_assert(std::is_same_v<T, typename B::Scalar>);
    const Matrix<T> x = a, y = b; // one layout
    return x.rows() == y.rows() && x.cols() == y.cols() &&
           std::memcmp(x.data(), y.data(), sizeof(T) * std::size_t(x.size())) == 0;
}

/// The message of the InputError `f` throws, or a null QString when it throws none.
template <class F>
QString inputErrorOf(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

/// An exact matrix from text: rows separated by ';', entries by spaces ("1 -1/2; 0 3").
inline Matrix<Rational> rat(const QString& textRows) {
    const QStringList rows = textRows.split(';');
    const QStringList first = rows.front().split(' ', Qt::SkipEmptyParts);
    Matrix<Rational> m(rows.size(), first.size());
    for (int i = 0; i < rows.size(); ++i) {
        const QStringList cells = rows[i].split(' ', Qt::SkipEmptyParts);
        Q_ASSERT(cells.size() == first.size());
        for (int j = 0; j < cells.size(); ++j)
            m(i, j) = parseRational(cells[j].toStdString());
    }
    return m;
}

/// The inverse of rat(): "a b; c d" in lowest terms, for readable exact comparisons.
inline QString text(const Matrix<Rational>& m) {
    QStringList rows;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QStringList cells;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            cells << QString::fromStdString(rationalText(m(i, j)));
        rows << cells.join(' ');
    }
    return rows.join("; ");
}

} // namespace attnlab::test
