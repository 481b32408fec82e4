// SPDX-License-Identifier: GPL-3.0-or-later
// kv-cache, declared, and the decode step it is drawn with.
#include "core/checks/properties/kv_cache/kv_cache_unit.h"

#include "core/base/error.h"
#include "core/checks/properties/kv_cache/kv_cache_check.h"
#include "core/spec/mask_conventions.h"

#include <algorithm>

namespace attnlab {

namespace {

/// The witness's m and alignment, else the scenario's, else one query, bottom-right.
PropertyComparison decodeComparison(const ComparisonSource& source) {
    const Scenario& s = source.scenario;
    PropertyComparison c;
    c.transform.kind = Transform::Kind::Decode;
    std::optional<long> m = firstInteger(source.witness("queries"));
    if (!m) m = firstInteger(source.parameter("queries"));
    c.transform.queries = int(std::clamp<long>(m.value_or(1), 1, std::max(1, s.n())));
    nlohmann::json alignment = source.witness("alignment");
    if (!alignment.is_string()) alignment = source.parameter("alignment");
    try { // a word the check refuses (and says so) leaves the default
        if (alignment.is_string())
            c.transform.alignment = parseAlignment(alignment.get<std::string>());
    } catch (const InputError&) {
    }
    c.summary = source.displayName + ": " + c.transform.describe(s.n());
    return c;
}

} // namespace

PropertyUnit kvCacheUnit() {
    return {.check = makeKvCacheCheck(),
            .displayName = "kv-cache",
            .docs = {.guideHeading = "kv-cache", .section = "2.15"},
            .comparison = decodeComparison};
}

} // namespace attnlab
