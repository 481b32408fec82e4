// SPDX-License-Identifier: GPL-3.0-or-later
// logit-symmetry, declared.
#include "core/checks/properties/logit_symmetry/logit_symmetry_unit.h"

#include "core/checks/properties/logit_symmetry/logit_symmetry_check.h"

namespace attnlab {

namespace {

PropertyComparison transposedScores(const ComparisonSource& source) {
    PropertyComparison c;
    c.kind = PropertyComparison::Kind::Transpose;
    c.summary = source.displayName + ": S beside Sᵀ";
    return c;
}

} // namespace

PropertyUnit logitSymmetryUnit() {
    return {.check = makeLogitSymmetryCheck(),
            .displayName = "logit-symmetry",
            .docs = {.guideHeading = "logit-symmetry", .section = "2.5"},
            .comparison = transposedScores};
}

} // namespace attnlab
