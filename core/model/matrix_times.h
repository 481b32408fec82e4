// SPDX-License-Identifier: GPL-3.0-or-later
// a·b for the model's forward and reverse passes: float and double on the instruction set the
// CPU kernels chose for this CPU (core/backend/cpu/matrix_product.h), rationals through Eigen in
// blocks of rows that a cancel stops between (row_block_product.h).
#pragma once

#include "core/backend/cpu/matrix_product.h"
#include "core/base/row_block_product.h"

#include <type_traits>

namespace attnlab {

namespace detail {
template <class X>
struct IsTranspose : std::false_type {};
template <class M>
struct IsTranspose<Eigen::Transpose<M>> : std::true_type {};

// x as a factor of the kernels' product: a transpose as the matrix it transposes, read in place.
template <class T, class X>
kernels::Factor<T> factor(const X& x) {
    if constexpr (IsTranspose<X>::value)
        return {x.nestedExpression(), true};
    else
        return {x, false};
}
} // namespace detail

/// a·b; a and b are matrices or expressions (blocks, transposes) of scalar type T.
template <class T, class A, class B>
Matrix<T> times(const A& a, const B& b) {
    if constexpr (std::is_floating_point_v<T>)
        return kernels::product<T>(detail::factor<T>(a), detail::factor<T>(b));
    else
        return rowBlockProduct<T>(a, b);
}

} // namespace attnlab
