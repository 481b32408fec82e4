// SPDX-License-Identifier: GPL-3.0-or-later
// batch-invariance, declared.
#include "core/checks/properties/batch_invariance/batch_invariance_unit.h"

#include "core/checks/properties/batch_invariance/batch_invariance_check.h"
#include "core/checks/properties/shared/split_comparison.h"

namespace attnlab {

namespace {

PropertyComparison aloneBesideInBatch(const ComparisonSource& source) {
    return splitComparison(source, PropertyComparison::SplitKind::Batch,
                           source.displayName +
                               ": the tokens alone beside the same tokens first in a batch of " +
                               batchInWords(source));
}

} // namespace

PropertyUnit batchInvarianceUnit() {
    return {.check = makeBatchInvarianceCheck(),
            .displayName = "batch-invariance",
            .docs = {.guideHeading = "batch-invariance", .section = "2.11"},
            .comparison = aloneBesideInBatch,
            .blackBox = makeBatchInvarianceBlackBox()};
}

} // namespace attnlab
