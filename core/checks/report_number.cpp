// SPDX-License-Identifier: GPL-3.0-or-later
// A report number's double value, JSON form and text.
#include "core/checks/report_number.h"

#include <stdexcept>

namespace attnlab {

double ReportNumber::toDouble() const {
    if (const auto* q = std::get_if<Rational>(&value_)) return attnlab::toDouble(*q);
    if (const auto* d = std::get_if<double>(&value_)) return *d;
    throw std::logic_error("a report number that is none has no value");
}

nlohmann::json ReportNumber::json() const {
    if (const auto* q = std::get_if<Rational>(&value_)) return rationalText(*q);
    if (const auto* d = std::get_if<double>(&value_)) return *d;
    return nullptr;
}

std::string ReportNumber::text() const {
    if (const auto* q = std::get_if<Rational>(&value_)) return rationalText(*q);
    return json().dump();
}

} // namespace attnlab
