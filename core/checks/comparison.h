// SPDX-License-Identifier: GPL-3.0-or-later
// Comparing two results entry by entry with a tolerance derived from the precision and the
// magnitudes involved: exact mode compares exactly; float modes allow rounding only.
#pragma once

#include "core/base/scalar.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnlab {

/// The largest |a - b| and where it is, plus the largest magnitude seen (for the tolerance).
template <class T>
struct Deviation {
    T largest = T(0);
    Eigen::Index row = -1, col = -1;
    T magnitude = T(0);
    /// Float modes: how many units in the last place apart the two values at (row, col) are
    /// (adjacent floats are 1 apart); always 0 in exact mode.
    long ulps = 0;

    /// Merges another comparison; keeps the larger deviation and its position.
    void merge(const Deviation& other);
};

template <class T>
Deviation<T> compareMatrices(const Matrix<T>& a, const Matrix<T>& b);

/// A comparison of two lists of matrices (one per sequence of a batch, one per layer and head):
/// the merged deviation and the index of the pair holding the largest one.
template <class T>
struct ListDeviation {
    Deviation<T> deviation;
    std::size_t index = 0;
};

/// Compares a[i] with b[i] for every i (the lists must have the same length and shapes).
template <class T>
ListDeviation<T> compareLists(const std::vector<Matrix<T>>& a, const std::vector<Matrix<T>>& b);

/// How far apart a and b are in units in the last place (0 when equal; float and double only;
/// capped at the largest long for doubles of opposite sign far from zero).
template <class T>
long ulpDistance(T a, T b);

/// The tolerance for comparing values of magnitude up to `magnitude` produced through `depth`
/// accumulations (e.g. n + d per layer times layers): 0 in exact mode, otherwise
/// 16·ε·depth·max(1, magnitude) with ε the unit roundoff of T.
template <class T>
T tolerance(const T& magnitude, long depth);
/// The rule `tolerance` applies, in words, for the report.
template <class T>
std::string toleranceRule(long depth);

/// A scalar as report JSON: "p/q" in exact mode, a number otherwise.
template <class T>
nlohmann::json scalarJson(const T& value);

template <class T>
T absolute(const T& x) {
    return x < T(0) ? T(-x) : T(x);
}

} // namespace attnlab
