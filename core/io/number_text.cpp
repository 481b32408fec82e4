// Short number texts.
#include "core/io/number_text.h"

#include <cstdio>

namespace attnlab {

std::string shortNumber(double value) {
    if (value == 0) return "0";
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

std::string shortFraction(const std::string& exact, double value) {
    constexpr std::size_t kLongest = 7;
    if (!exact.empty() && exact.size() <= kLongest) return exact;
    return shortNumber(value);
}

} // namespace attnlab
