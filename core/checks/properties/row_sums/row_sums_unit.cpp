// SPDX-License-Identifier: GPL-3.0-or-later
// row-sums, declared.
#include "core/checks/properties/row_sums/row_sums_unit.h"

#include "core/checks/properties/row_sums/row_sums_check.h"

namespace attnlab {

PropertyUnit rowSumsUnit() {
    return {.check = makeRowSumsCheck(),
            .displayName = "row-sums",
            .docs = {.guideHeading = "row-sums", .section = "2.6"},
            .comparison = [](const ComparisonSource& source) {
                return undrawnComparison(source,
                                         "each row of A's sum with 1 (read it on the A maps)");
            }};
}

} // namespace attnlab
