// SPDX-License-Identifier: GPL-3.0-or-later
// shift-invariance, declared: the shift drawn, and the explorer's shift added to its offsets.
#include "core/checks/properties/shift_invariance/shift_invariance_unit.h"

#include "core/checks/parameter_text.h"
#include "core/checks/properties/shift_invariance/shift_invariance_check.h"

#include <algorithm>

namespace attnlab {

namespace {

/// The witness's offset, else the first one checked, else the scenario's, else 1.
PropertyComparison shiftComparison(const ComparisonSource& source) {
    PropertyComparison c;
    c.transform.kind = Transform::Kind::Shift;
    std::optional<long> offset = firstInteger(source.witness("offset"));
    if (!offset) offset = firstInteger(source.checked("offsets"));
    if (!offset) offset = firstInteger(source.parameter(shiftOffsetParameter().name));
    c.transform.shift = offset.value_or(1);
    c.summary = source.displayName + ": " + c.transform.describe();
    return c;
}

/// Offsets left to auto: the declared default, and the transform's shift c when it shifts.
void checkTheTransformsShift(nlohmann::json& params, const Transform& transform) {
    const CheckParameter& p = shiftOffsetParameter();
    if (params.contains(p.name) || transform.kind != Transform::Kind::Shift || transform.shift == 0)
        return;
    std::vector<long> offsets = parameterValue(p, p.defaultValue).get<std::vector<long>>();
    if (std::find(offsets.begin(), offsets.end(), transform.shift) == offsets.end())
        offsets.push_back(transform.shift);
    params[p.name] = offsets;
}

} // namespace

PropertyUnit shiftInvarianceUnit() {
    return {.check = makeShiftInvarianceCheck(),
            .displayName = "shift-invariance",
            .docs = {.guideHeading = "shift-invariance", .section = "2.10"},
            .comparison = shiftComparison,
            .followTransform = checkTheTransformsShift};
}

} // namespace attnlab
