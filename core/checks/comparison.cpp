// SPDX-License-Identifier: GPL-3.0-or-later
// Entry-wise comparison and tolerances.
#include "core/checks/comparison.h"

#include "core/base/cancellation.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

namespace attnlab {

template <class T>
void Deviation<T>::merge(const Deviation& other) {
    if (other.row >= 0 && (row < 0 || other.largest > largest)) {
        largest = other.largest;
        row = other.row;
        col = other.col;
        ulps = other.ulps;
    }
    if (other.magnitude > magnitude) magnitude = other.magnitude;
}

template <class T>
long ulpDistance(T a, T b) {
    static_assert(std::is_floating_point_v<T>);
    if (a == b) return 0;
    using Bits = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
    // Reorders the bit patterns so that adjacent floats are adjacent integers across zero.
    const auto ordered = [](T x) {
        const Bits i = std::bit_cast<Bits>(x);
        return i < 0 ? std::int64_t(std::numeric_limits<Bits>::min()) - std::int64_t(i)
                     : std::int64_t(i);
    };
    // Far apart across zero the difference exceeds int64 (it is below 2^64): unsigned, then
    // capped, so the distance of two doubles of opposite sign is large, not undefined.
    const std::int64_t da = ordered(a), db = ordered(b);
    const std::uint64_t distance =
        da > db ? std::uint64_t(da) - std::uint64_t(db) : std::uint64_t(db) - std::uint64_t(da);
    constexpr auto most = std::uint64_t(std::numeric_limits<long>::max());
    return long(distance > most ? most : distance);
}

template <class T>
Deviation<T> compareMatrices(const Matrix<T>& a, const Matrix<T>& b) {
    Deviation<T> d;
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
        pollCancellation(); // an exact n x n map takes seconds to compare at thousands of tokens
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            T diff = absolute<T>(a(i, j) - b(i, j));
            if constexpr (!ScalarOps<T>::exact)
                if (std::isnan(diff)) // a NaN, or equal infinities: never within a tolerance
                    diff = std::numeric_limits<T>::infinity();
            if (d.row < 0 || diff > d.largest) {
                d.largest = diff;
                d.row = i;
                d.col = j;
            }
            d.magnitude =
                std::max<T>(d.magnitude, std::max<T>(absolute<T>(a(i, j)), absolute<T>(b(i, j))));
            if constexpr (!ScalarOps<T>::exact)
                if (d.row == i && d.col == j) d.ulps = ulpDistance(a(i, j), b(i, j));
        }
    }
    return d;
}

template <class T>
ListDeviation<T> compareLists(const std::vector<Matrix<T>>& a, const std::vector<Matrix<T>>& b) {
    ListDeviation<T> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Deviation<T> d = compareMatrices<T>(a[i], b.at(i));
        if (i == 0 || d.largest > out.deviation.largest) out.index = i;
        out.deviation.merge(d);
    }
    return out;
}

template <class T>
T tolerance(const T& magnitude, long depth) {
    if constexpr (ScalarOps<T>::exact) {
        return T(0);
    } else {
        const T eps = std::numeric_limits<T>::epsilon() / 2;
        return T(16) * eps * T(std::max(depth, 1L)) * std::max<T>(T(1), magnitude);
    }
}

template <class T>
std::string toleranceRule(long depth) {
    if constexpr (ScalarOps<T>::exact) {
        return "exact arithmetic: values must be equal (tolerance 0)";
    } else {
        std::ostringstream out;
        out << "16 * eps * depth * max(1, largest |value|) with eps = "
            << std::numeric_limits<T>::epsilon() / 2 << " (unit roundoff of "
            << (std::is_same_v<T, float> ? "float32" : "float64") << ") and depth = " << depth
            << " (accumulation length n + d summed over layers); larger differences are not "
               "rounding";
        return out.str();
    }
}

template <class T>
nlohmann::json scalarJson(const T& value) {
    if constexpr (ScalarOps<T>::exact)
        return rationalText(value);
    else
        return static_cast<double>(value);
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template struct Deviation<T>;                                                                  \
    template Deviation<T> compareMatrices<T>(const Matrix<T>&, const Matrix<T>&);                  \
    template ListDeviation<T> compareLists<T>(const std::vector<Matrix<T>>&,                       \
                                              const std::vector<Matrix<T>>&);                      \
    template T tolerance<T>(const T&, long);                                                       \
    template std::string toleranceRule<T>(long);                                                   \
    template nlohmann::json scalarJson<T>(const T&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
ATTNLAB_INSTANTIATE(Rational)
#undef ATTNLAB_INSTANTIATE
template long ulpDistance<float>(float, float);
template long ulpDistance<double>(double, double);

} // namespace attnlab
