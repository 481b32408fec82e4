// SPDX-License-Identifier: GPL-3.0-or-later
// all-true-mask, declared.
#include "core/checks/properties/all_true_mask/all_true_mask_unit.h"

#include "core/checks/properties/all_true_mask/all_true_mask_check.h"
#include "core/checks/properties/shared/split_comparison.h"

namespace attnlab {

namespace {

PropertyComparison unmaskedBesideMasked(const ComparisonSource& source) {
    const std::string& name = source.displayName;
    return splitComparison(source, PropertyComparison::SplitKind::Unmasked,
                           name + ": the unmasked code path beside the masked one",
                           name + " also compares the input gradients (not drawn)");
}

} // namespace

PropertyUnit allTrueMaskUnit() {
    return {.check = makeAllTrueMaskCheck(),
            .displayName = "all-true-mask",
            .docs = {.guideHeading = "all-true-mask", .section = "2.7"},
            .comparison = unmaskedBesideMasked};
}

} // namespace attnlab
