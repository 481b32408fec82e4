// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix product a·b (float, double) on the variant of the CPU kernels chosen for this CPU
// (kernel_dispatch.h): for the model's projections, which are built for the baseline otherwise.
#pragma once

#include "core/base/scalar.h"

namespace attnlab::kernels {

/// A read-only view of a matrix or of a block of its rows or columns.
template <class T>
using MatrixView = Eigen::Ref<const Matrix<T>>;

/// A factor of a product: a matrix as stored, or its transpose, which the product reads in place
/// (a transposed view converted to a MatrixView would be copied first). Not copyable: a view of an
/// expression holds the expression's value, and a copy of the view would point into it.
template <class T>
struct Factor {
    template <class X>
    Factor(const X& matrix, bool transposedInProduct)
        : stored(matrix), transposed(transposedInProduct) {}
    Factor(const Factor&) = delete;
    Factor& operator=(const Factor&) = delete;

    MatrixView<T> stored;
    bool transposed;

    Eigen::Index rows() const { return transposed ? stored.cols() : stored.rows(); }
    Eigen::Index cols() const { return transposed ? stored.rows() : stored.cols(); }
    /// Rows [first, first + count) of the factor (as it enters the product).
    Factor middleRows(Eigen::Index first, Eigen::Index count) const {
        if (transposed) return {stored.middleCols(first, count), true};
        return {stored.middleRows(first, count), false};
    }
    /// Columns [first, first + count) of the factor.
    Factor middleCols(Eigen::Index first, Eigen::Index count) const {
        if (transposed) return {stored.middleRows(first, count), true};
        return {stored.middleCols(first, count), false};
    }
};

/// a·b. T is float or double. a's rows and b's columns are taken in blocks of fixed sizes, spread
/// over the threads when the product is large (base/parallel.h), so the result is the same on any
/// number of threads.
template <class T>
Matrix<T> product(const Factor<T>& a, const Factor<T>& b);

} // namespace attnlab::kernels
