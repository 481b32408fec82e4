// SPDX-License-Identifier: GPL-3.0-or-later
// The scalar types AttnLab computes in and the Eigen typedefs every core file uses.
// `float`, `double` and `Rational` (GMP's mpq_class) share one code path: numerical code is
// written once as templates over the scalar, and the few operations that only exist for
// floating point (exp, sin, cos, sqrt) go through `ScalarOps`, which refuses them for
// `Rational` with a clear message.
#pragma once

#include <Eigen/Dense>
#include <gmpxx.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace attnlab {
using Rational = mpq_class;
}

namespace Eigen {
/// Lets Eigen use exact rationals: comparisons are exact, so epsilon is 0.
template <>
struct NumTraits<attnlab::Rational> : GenericNumTraits<attnlab::Rational> {
    using Real = attnlab::Rational;
    using NonInteger = attnlab::Rational;
    using Nested = attnlab::Rational;
    using Literal = attnlab::Rational;
    static inline Real epsilon() { return 0; }
    static inline Real dummy_precision() { return 0; }
    static inline int digits10() { return 0; }
    enum {
        IsInteger = 0,
        IsSigned = 1,
        IsComplex = 0,
        RequireInitialization = 1,
        ReadCost = 6,
        AddCost = 150,
        MulCost = 100
    };
};
} // namespace Eigen

namespace attnlab {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
/// The same, row-major: rows as a file stores them (a torch [out, in] weight read this way is the
/// column-major [in, out] matrix without moving a value), or a kernel's packed operand.
template <class T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using RowVector = Eigen::Matrix<T, 1, Eigen::Dynamic>;
/// A boolean matrix: masks, dependency maps. true = "may attend" / "depends".
using BoolMatrix = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;

/// The arithmetic a computation runs in.
enum class Precision { Float32, Float64, Exact };

/// "float32", "float64" or "exact".
std::string_view precisionName(Precision p);
/// Parses a precision name; throws InputError otherwise.
Precision parsePrecision(std::string_view text);

/// Parses "k", "p/q" or a decimal such as "-0.25" / "1e-3" into an exact rational.
/// Throws InputError naming the text when it is not a finite number.
Rational parseRational(std::string_view text);
/// The exact rational equal to the shortest decimal that round-trips `x` (0.1 -> 1/10).
/// Throws InputError for NaN/Inf.
Rational decimalRational(double x);
/// "k" or "p/q" in lowest terms.
std::string rationalText(const Rational& q);
/// The double nearest to `q` (to within one ulp).
double toDouble(const Rational& q);

/// Throws InputError: `q` lies beyond `largest`, the largest finite value of `type`.
[[noreturn]] void refuseBeyondRange(const Rational& q, double largest, std::string_view type);

/// Conversions and transcendental functions per scalar type.
template <class T>
struct ScalarOps {
    static constexpr bool exact = false;
    /// The nearest T; throws InputError where q lies beyond T's finite range (a value that would
    /// become an infinity, and NaN after it, is refused rather than computed with).
    static T fromRational(const Rational& q) {
        constexpr T largest = std::numeric_limits<T>::max();
        const T x = static_cast<T>(attnlab::toDouble(q));
        if (!(std::abs(x) < largest) && abs(q) > Rational(double(largest)))
            refuseBeyondRange(q, double(largest), sizeof(T) == 4 ? "float32" : "float64");
        return x;
    }
    static T fromDouble(double x) { return static_cast<T>(x); }
    static double toDouble(T x) { return static_cast<double>(x); }
    static T exp(T x, const char*) { return std::exp(x); }
    static T sin(T x, const char*) { return std::sin(x); }
    static T cos(T x, const char*) { return std::cos(x); }
    static T sqrt(T x, const char*) { return std::sqrt(x); }
    static T pow(T x, T y, const char*) { return std::pow(x, y); }
};

template <>
struct ScalarOps<Rational> {
    static constexpr bool exact = true;
    static Rational fromRational(const Rational& q) { return q; }
    static Rational fromDouble(double x) { return decimalRational(x); }
    static double toDouble(const Rational& x) { return attnlab::toDouble(x); }
    // Each refuses: exact mode has no rational exp/sin/cos/sqrt. `who` names the caller.
    [[noreturn]] static Rational exp(const Rational&, const char* who);
    [[noreturn]] static Rational sin(const Rational&, const char* who);
    [[noreturn]] static Rational cos(const Rational&, const char* who);
    [[noreturn]] static Rational sqrt(const Rational&, const char* who);
    [[noreturn]] static Rational pow(const Rational&, const Rational&, const char* who);
};

/// x^k for an integer k >= 0, exact in every scalar type.
template <class T>
T integerPower(const T& x, long k) {
    T result = T(1);
    T base = x;
    while (k > 0) {
        if (k & 1) result *= base;
        base *= base;
        k >>= 1;
    }
    return result;
}

/// max(x, 0) in every scalar type.
template <class T>
T relu(const T& x) {
    return x > T(0) ? T(x) : T(0);
}

} // namespace attnlab
