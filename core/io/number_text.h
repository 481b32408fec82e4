// Numbers short enough to read on a map or a slide: a value to 3 significant digits, and an exact
// fraction kept as it is while it stays short.
#pragma once

#include <string>

namespace attnlab {

/// `value` to 3 significant digits ("0.778", "6", "-1.5e-16"); negative zero reads "0".
std::string shortNumber(double value);

/// `exact` ("7/9") when it has at most 7 characters, otherwise shortNumber(value), the same
/// number rounded; an empty `exact` gives shortNumber(value).
std::string shortFraction(const std::string& exact, double value);

} // namespace attnlab
