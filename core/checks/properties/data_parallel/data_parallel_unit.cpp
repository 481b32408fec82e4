// SPDX-License-Identifier: GPL-3.0-or-later
// data-parallel, declared.
#include "core/checks/properties/data_parallel/data_parallel_unit.h"

#include "core/checks/properties/data_parallel/data_parallel_check.h"
#include "core/checks/properties/shared/split_comparison.h"

namespace attnlab {

namespace {

PropertyComparison workerBesideWhole(const ComparisonSource& source) {
    const std::string& name = source.displayName;
    return splitComparison(source, PropertyComparison::SplitKind::DataParallel,
                           name + ": the tokens in their worker's half beside the whole batch of " +
                               batchInWords(source),
                           name + " also compares the loss and the input gradients (not drawn)");
}

} // namespace

PropertyUnit dataParallelUnit() {
    return {.check = makeDataParallelCheck(),
            .displayName = "data-parallel",
            .docs = {.guideHeading = "data-parallel", .section = "2.13"},
            .comparison = workerBesideWhole};
}

} // namespace attnlab
