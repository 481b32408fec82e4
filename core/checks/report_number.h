// SPDX-License-Identifier: GPL-3.0-or-later
// A number a property report carries (its largest deviation, its tolerance): the exact rational
// a check computed in exact mode, a double in float modes, or none when the property does not
// apply; with its JSON form (cli.md) and its text.
#pragma once

#include "core/base/scalar.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <variant>

namespace attnlab {

class ReportNumber {
public:
    /// None: the property does not apply.
    ReportNumber() = default;
    ReportNumber(Rational exact) : value_(std::move(exact)) {}
    ReportNumber(double value) : value_(value) {}

    /// A check's scalar of type T: exact for Rational, a double for float and double.
    template <class T>
    static ReportNumber of(const T& value) {
        if constexpr (ScalarOps<T>::exact)
            return ReportNumber(Rational(value));
        else
            return ReportNumber(static_cast<double>(value));
    }

    bool isExact() const { return std::holds_alternative<Rational>(value_); }
    bool isFloat() const { return std::holds_alternative<double>(value_); }
    /// The value as a double (the nearest one for a rational); throws std::logic_error for none.
    double toDouble() const;

    /// "p/q" when exact, a number in float modes, null for none.
    nlohmann::json json() const;
    /// "p/q" when exact, otherwise the JSON form as text (e.g. "1e-05", "null").
    std::string text() const;

private:
    std::variant<std::monostate, Rational, double> value_;
};

} // namespace attnlab
