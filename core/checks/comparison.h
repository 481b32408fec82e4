// Comparing two results entry by entry with a tolerance derived from the precision and the
// magnitudes involved: exact mode compares exactly; float modes allow rounding only.
#pragma once

#include "scalar.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnlab {

/// The largest |a - b| and where it is, plus the largest magnitude seen (for the tolerance).
template <class T>
struct Deviation {
    T largest = T(0);
    Eigen::Index row = -1, col = -1;
    T magnitude = T(0);

    /// Merges another comparison; keeps the larger deviation and its position.
    void merge(const Deviation& other);
};

template <class T>
Deviation<T> compareMatrices(const Matrix<T>& a, const Matrix<T>& b);

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
