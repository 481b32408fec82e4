// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-parallel, declared, and the part count it is drawn with.
#include "core/checks/properties/tensor_parallel/tensor_parallel_unit.h"

#include "core/checks/properties/shared/split_comparison.h"
#include "core/checks/properties/tensor_parallel/tensor_parallel_check.h"

#include <algorithm>

namespace attnlab {

namespace {

/// The witness's part count, else the first one checked, else the scenario's, else 2.
PropertyComparison splitBesideWhole(const ComparisonSource& source) {
    std::optional<long> parts = firstInteger(source.witness("parts"));
    if (!parts) parts = firstInteger(source.checked("parts"));
    if (!parts) parts = firstInteger(source.parameter("parts"));
    const int drawn = int(std::clamp<long>(parts.value_or(2), 1, 64));
    PropertyComparison c =
        splitComparison(source, PropertyComparison::SplitKind::TensorParallel,
                        source.displayName + ": the model split across " + std::to_string(drawn) +
                            " parts beside the whole model");
    c.parts = drawn;
    return c;
}

} // namespace

PropertyUnit tensorParallelUnit() {
    return {.check = makeTensorParallelCheck(),
            .displayName = "tensor-parallel",
            .docs = {.guideHeading = "tensor-parallel", .section = "2.12"},
            .comparison = splitBesideWhole};
}

} // namespace attnlab
