// The matrix product a·b (float, double) on the variant of the CPU kernels chosen for this CPU
// (kernel_dispatch.h): for the model's projections, which are built for the baseline otherwise.
#pragma once

#include "core/base/scalar.h"

namespace attnlab::kernels {

/// A read-only view of a matrix or of a block of its rows or columns.
template <class T>
using MatrixView = Eigen::Ref<const Matrix<T>>;

/// a·b. T is float or double. a's rows and b's columns are taken in blocks of fixed sizes, spread
/// over the threads when the product is large (base/parallel.h), so the result is the same on any
/// number of threads.
template <class T>
Matrix<T> product(const MatrixView<T>& a, const MatrixView<T>& b);

} // namespace attnlab::kernels
