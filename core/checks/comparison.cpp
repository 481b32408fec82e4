// Entry-wise comparison and tolerances.
#include "checks/comparison.h"

#include <limits>
#include <sstream>

namespace attnlab {

template <class T>
void Deviation<T>::merge(const Deviation& other) {
    if (other.row >= 0 && (row < 0 || other.largest > largest)) {
        largest = other.largest;
        row = other.row;
        col = other.col;
    }
    if (other.magnitude > magnitude) magnitude = other.magnitude;
}

template <class T>
Deviation<T> compareMatrices(const Matrix<T>& a, const Matrix<T>& b) {
    Deviation<T> d;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            const T diff = absolute<T>(a(i, j) - b(i, j));
            if (d.row < 0 || diff > d.largest) {
                d.largest = diff;
                d.row = i;
                d.col = j;
            }
            d.magnitude =
                std::max<T>(d.magnitude, std::max<T>(absolute<T>(a(i, j)), absolute<T>(b(i, j))));
        }
    return d;
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
    template T tolerance<T>(const T&, long);                                                       \
    template std::string toleranceRule<T>(long);                                                   \
    template nlohmann::json scalarJson<T>(const T&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
ATTNLAB_INSTANTIATE(Rational)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
