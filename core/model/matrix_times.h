// a·b for the model's forward and reverse passes: float and double on the instruction set the
// CPU kernels chose for this CPU (core/backend/cpu/matrix_product.h), rationals through Eigen.
#pragma once

#include "core/backend/cpu/matrix_product.h"

#include <type_traits>

namespace attnlab {

/// a·b; a and b are matrices or expressions (blocks, transposes) of scalar type T.
template <class T, class A, class B>
Matrix<T> times(const A& a, const B& b) {
    if constexpr (std::is_floating_point_v<T>)
        return kernels::product<T>(a, b);
    else
        return a * b;
}

} // namespace attnlab
