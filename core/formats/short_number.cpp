// SPDX-License-Identifier: GPL-3.0-or-later
// Short forms of numbers for cells and colour bars.
#include "core/formats/short_number.h"

#include <cstdio>

namespace attnlab {

std::string shortNumber(double value, int digits) {
    if (value == 0) return "0"; // also -0
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    std::string text = buffer;
    // "1.2e-07" -> "1.2e-7", "1e+10" -> "1e10": the exponent without sign padding.
    const std::size_t e = text.find('e');
    if (e == std::string::npos) return text;
    std::string mantissa = text.substr(0, e);
    const char sign = text[e + 1];
    std::size_t digit = e + 2;
    while (digit + 1 < text.size() && text[digit] == '0')
        ++digit;
    return mantissa + "e" + (sign == '-' ? "-" : "") + text.substr(digit);
}

std::string shortCellText(const std::string& exact, double value, std::size_t maxChars,
                          int digits) {
    if (!exact.empty() && exact.size() <= maxChars) return exact;
    return shortNumber(value, digits);
}

} // namespace attnlab
