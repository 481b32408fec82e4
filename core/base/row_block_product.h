// SPDX-License-Identifier: GPL-3.0-or-later
// a·b that a cancel stops between blocks of rows: an exact product of n x n maps takes seconds at
// thousands of tokens, too long to finish before a cancelled check returns.
#pragma once

#include "core/base/cancellation.h"
#include "core/base/scalar.h"

#include <algorithm>
#include <type_traits>

namespace attnlab {

/// a·b through Eigen; for rationals in blocks of rows, polling the calling thread's cancel flag
/// (cancellation.h) before each.
template <class T, class A, class B>
Matrix<T> rowBlockProduct(const A& a, const B& b) {
    if constexpr (std::is_floating_point_v<T>) {
        return a * b;
    } else {
        constexpr Eigen::Index kRows = 64;
        Matrix<T> out(a.rows(), b.cols());
        for (Eigen::Index first = 0; first < a.rows(); first += kRows) {
            pollCancellation();
            const Eigen::Index rows = std::min(kRows, a.rows() - first);
            out.middleRows(first, rows).noalias() = a.middleRows(first, rows) * b;
        }
        return out;
    }
}

} // namespace attnlab
