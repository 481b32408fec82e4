// SPDX-License-Identifier: GPL-3.0-or-later
// Matrix products split the way tensor parallelism splits them (properties.md §2.12):
// column-parallel (each part its block of the output's columns, gathered) and row-parallel
// (each part its block of the inner dimension, the partial products added in part order: the
// all-reduce). One part is the plain product.
#pragma once

#include "core/model/matrix_times.h"

#include <utility>

namespace attnlab {

/// Part `part` of `parts` contiguous, nearly equal blocks of 0..total-1: [first, first + size).
inline std::pair<Eigen::Index, Eigen::Index> partBlock(Eigen::Index total, int parts, int part) {
    const Eigen::Index first = total * part / parts, next = total * (part + 1) / parts;
    return {first, next - first};
}

/// a·b with b's columns split into `parts` blocks, each block's product computed on its own.
template <class T>
Matrix<T> columnParallel(const Matrix<T>& a, const Matrix<T>& b, int parts) {
    if (parts <= 1) return times<T>(a, b);
    Matrix<T> out(a.rows(), b.cols());
    for (int part = 0; part < parts; ++part) {
        const auto [first, size] = partBlock(b.cols(), parts, part);
        out.middleCols(first, size) = times<T>(a, b.middleCols(first, size));
    }
    return out;
}

/// a·b with the inner dimension split into `parts` blocks, the partial products added in order.
template <class T>
Matrix<T> rowParallel(const Matrix<T>& a, const Matrix<T>& b, int parts) {
    if (parts <= 1) return times<T>(a, b);
    Matrix<T> out = Matrix<T>::Zero(a.rows(), b.cols());
    for (int part = 0; part < parts; ++part) {
        const auto [first, size] = partBlock(a.cols(), parts, part);
        if (size > 0) out += times<T>(a.middleCols(first, size), b.middleRows(first, size));
    }
    return out;
}

} // namespace attnlab
