// SPDX-License-Identifier: GPL-3.0-or-later
// gradient, declared.
#include "core/checks/properties/gradient/gradient_unit.h"

#include "core/checks/properties/gradient/gradient_check.h"

namespace attnlab {

PropertyUnit gradientUnit() {
    return {.check = makeGradientCheck(),
            .displayName = "gradient",
            .docs = {.guideHeading = "gradient", .section = "2.14"},
            .comparison = [](const ComparisonSource& source) {
                return undrawnComparison(source, "the reverse pass with finite differences");
            }};
}

} // namespace attnlab
