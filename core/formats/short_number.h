// SPDX-License-Identifier: GPL-3.0-or-later
// The short forms of numbers written inside heatmap cells and on colour bars: an exact fraction
// when it is short ("7/9"), else three significant digits ("37.7", "1.2e-7").
#pragma once

#include <string>

namespace attnlab {

/// `value` with `digits` significant digits, without trailing zeros or a padded exponent
/// ("37.7", "0.778", "1.2e-7", "-3"); negative zero reads "0".
std::string shortNumber(double value, int digits = 3);

/// What a cell shows: `exact` (a fraction or integer in exact mode) when it has at most
/// `maxChars` characters, else shortNumber(value, digits). An empty `exact` (float modes) gives
/// shortNumber(value, digits).
std::string shortCellText(const std::string& exact, double value, std::size_t maxChars = 5,
                          int digits = 3);

} // namespace attnlab
