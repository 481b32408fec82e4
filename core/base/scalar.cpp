// SPDX-License-Identifier: GPL-3.0-or-later
// Rational parsing, printing and rounding to double, and the refusals of exact mode.
#include "core/base/scalar.h"

#include "core/base/enum_names.h"
#include "core/base/error.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <optional>
#include <string>

namespace attnlab {

namespace {
constexpr EnumName<Precision> kPrecisionNames[] = {
    {Precision::Float32, "float32"}, {Precision::Float64, "float64"}, {Precision::Exact, "exact"}};

// GMP's own allocation functions abort the process when memory runs out ("GNU MP: Cannot allocate
// memory"), so exact arithmetic on too large an input killed the program. These are the same
// malloc, realloc and free (numbers allocated before they are installed stay compatible), but
// throw std::bad_alloc instead, which the CLI and the explorer report as running out of memory.
// A failed realloc leaves the number as it was.
void* gmpAllocate(std::size_t size) {
    if (void* p = std::malloc(size)) return p;
    throw std::bad_alloc();
}
void* gmpReallocate(void* old, std::size_t, std::size_t size) {
    if (void* p = std::realloc(old, size)) return p;
    throw std::bad_alloc();
}
void gmpFree(void* p, std::size_t) {
    std::free(p);
}
[[maybe_unused]] const bool gmpThrowsWhenOutOfMemory =
    (mp_set_memory_functions(gmpAllocate, gmpReallocate, gmpFree), true);
} // namespace

std::string_view precisionName(Precision p) {
    return nameOf<Precision>(kPrecisionNames, p);
}

Precision parsePrecision(std::string_view text) {
    if (const auto p = valueOf<Precision>(kPrecisionNames, text)) return *p;
    throw InputError("unknown precision '" + std::string(text) +
                     "' (expected float32, float64 or exact)");
}

namespace {

bool isDigits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// Parses [+-]digits[.digits][e[+-]digits] exactly.
bool parseDecimal(std::string_view s, Rational& out) {
    bool negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    long exponent = 0;
    if (auto e = s.find_first_of("eE"); e != std::string_view::npos) {
        std::string_view ex = s.substr(e + 1);
        bool expNegative = false;
        if (!ex.empty() && (ex[0] == '-' || ex[0] == '+')) {
            expNegative = ex[0] == '-';
            ex.remove_prefix(1);
        }
        if (!isDigits(ex) || ex.size() > 6) return false;
        exponent = std::stol(std::string(ex)) * (expNegative ? -1 : 1);
        s = s.substr(0, e);
    }
    std::string digits;
    if (auto dot = s.find('.'); dot != std::string_view::npos) {
        std::string_view whole = s.substr(0, dot), frac = s.substr(dot + 1);
        if ((whole.empty() && frac.empty()) || (!whole.empty() && !isDigits(whole)) ||
            (!frac.empty() && !isDigits(frac)))
            return false;
        digits = std::string(whole) + std::string(frac);
        exponent -= static_cast<long>(frac.size());
    } else {
        if (!isDigits(s)) return false;
        digits = std::string(s);
    }
    mpz_class mantissa(digits, 10);
    mpz_class ten = 10, scale;
    mpz_pow_ui(scale.get_mpz_t(), ten.get_mpz_t(), static_cast<unsigned long>(std::labs(exponent)));
    out = exponent >= 0 ? Rational(mantissa * scale) : Rational(mantissa, scale);
    out.canonicalize();
    if (negative) out = -out;
    return true;
}

} // namespace

Rational parseRational(std::string_view text) {
    Rational result;
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) {
        if (parseDecimal(text, result)) return result;
    } else {
        std::string_view num = text.substr(0, slash), den = text.substr(slash + 1);
        std::string_view numDigits = num;
        if (!numDigits.empty() && (numDigits[0] == '-' || numDigits[0] == '+'))
            numDigits.remove_prefix(1);
        if (isDigits(numDigits) && isDigits(den)) {
            mpz_class d(std::string(den), 10);
            if (d == 0) throw InputError("'" + std::string(text) + "' divides by zero");
            mpz_class n(std::string(numDigits), 10);
            if (num[0] == '-') n = -n;
            result = Rational(n, d);
            result.canonicalize();
            return result;
        }
    }
    throw InputError("'" + std::string(text) + "' is not a number (expected k, p/q or a decimal)");
}

Rational decimalRational(double x) {
    if (!std::isfinite(x)) throw InputError("non-finite number (NaN or Inf) is not allowed");
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
    (void)ec;
    return parseRational(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

std::string rationalText(const Rational& q) {
    return q.get_str(10);
}

namespace {

// The magnitude of z when it fits in one 64-bit limb.
std::optional<std::uint64_t> smallMagnitude(mpz_srcptr z) {
    if (GMP_LIMB_BITS != 64 || mpz_size(z) > 1) return std::nullopt;
    return std::uint64_t(mpz_getlimbn(z, 0));
}

// The nearest double by one division in long double, when that decides it: p and q below 2^64
// are exact in a 64-bit significand, so p/q is rounded once; every midpoint between two doubles
// is representable there too, so rounding that quotient to double gives q's nearest double
// unless the quotient is itself such a midpoint (then nullopt: the caller decides).
std::optional<double> nearestByDivision(const Rational& q) {
    // x87 extended (64 digits) or IEEE quad (113): correctly rounded, and every midpoint fits.
    using Wide = std::numeric_limits<long double>;
    if constexpr (!Wide::is_iec559 || (Wide::digits != 64 && Wide::digits != 113))
        return std::nullopt;
    const auto p = smallMagnitude(q.get_num_mpz_t()), d = smallMagnitude(q.get_den_mpz_t());
    if (!p || !d) return std::nullopt;
    const long double quotient = static_cast<long double>(*p) / static_cast<long double>(*d);
    const double nearest = static_cast<double>(quotient); // within [2^-64, 2^64]: finite
    if (static_cast<long double>(nearest) != quotient) {
        const double beyond = std::nextafter(nearest, quotient > nearest ? HUGE_VAL : -HUGE_VAL);
        const long double midpoint =
            (static_cast<long double>(nearest) + static_cast<long double>(beyond)) / 2;
        if (quotient == midpoint) return std::nullopt;
    }
    return sgn(q) < 0 ? -nearest : nearest;
}

} // namespace

double toDouble(const Rational& q) {
    if (const auto fast = nearestByDivision(q)) return *fast;
    // mpq_get_d truncates; the nearest double is found by correcting toward q.
    double d = q.get_d();
    if (d == 0.0 && q != 0) return d;
    const double up = std::nextafter(d, q > 0 ? HUGE_VAL : -HUGE_VAL);
    if (!std::isfinite(up)) return d;
    const Rational errD = abs(Rational(d) - q), errUp = abs(Rational(up) - q);
    return errUp < errD ? up : d;
}

void refuseBeyondRange(const Rational& q, double largest, std::string_view type) {
    char text[48];
    if (const double d = toDouble(q); std::isfinite(d)) {
        std::snprintf(text, sizeof text, "%.3g", d);
    } else { // beyond double too: its decimal logarithm, from numerator and denominator
        long numExp = 0, denExp = 0;
        const double num = std::abs(mpz_get_d_2exp(&numExp, q.get_num_mpz_t())),
                     den = mpz_get_d_2exp(&denExp, q.get_den_mpz_t());
        const double log10q = std::log10(num / den) + double(numExp - denExp) * std::log10(2.0);
        const double power = std::floor(log10q);
        std::snprintf(text, sizeof text, "about %s%.2ge%.0f", q < 0 ? "-" : "",
                      std::pow(10.0, log10q - power), power);
    }
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.3g", largest);
    throw InputError(std::string(text) + " is beyond the range of " + std::string(type) +
                     " (largest " + limit + ")");
}

namespace {
[[noreturn]] void refuse(const char* function, const char* who) {
    throw InputError(std::string("precision exact: ") + who + " needs " + function +
                     ", which has no exact rational value; use float32 or float64");
}
} // namespace

Rational ScalarOps<Rational>::exp(const Rational&, const char* who) {
    refuse("exp", who);
}
Rational ScalarOps<Rational>::sin(const Rational&, const char* who) {
    refuse("sin", who);
}
Rational ScalarOps<Rational>::cos(const Rational&, const char* who) {
    refuse("cos", who);
}
Rational ScalarOps<Rational>::sqrt(const Rational&, const char* who) {
    refuse("sqrt", who);
}
Rational ScalarOps<Rational>::pow(const Rational&, const Rational&, const char* who) {
    refuse("a real power", who);
}

} // namespace attnlab
