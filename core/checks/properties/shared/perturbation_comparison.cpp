// SPDX-License-Identifier: GPL-3.0-or-later
// Choosing the perturbed token: the witness's dependency, the first of its suffix, or a default.
#include "core/checks/properties/shared/perturbation_comparison.h"

#include <algorithm>

namespace attnlab {

PropertyComparison perturbationComparison(const ComparisonSource& source,
                                          DefaultPerturbedToken fallback) {
    const Scenario& s = source.scenario;
    const PropertyReport* report = source.report;
    PropertyComparison c;
    c.transform.kind = Transform::Kind::Perturbation;
    const bool last = fallback == DefaultPerturbedToken::Last;
    int token = last ? s.n() - 1 : s.n() / 2;
    std::string which = last ? "the last token" : "the middle token";
    if (report && report->witness && report->witness->cell() &&
        report->witness->cell()->map == WitnessCell::Map::Dependency) {
        const WitnessCell& cell = *report->witness->cell();
        token = cell.column;
        which = "the witness's token";
    } else if (auto from = firstInteger(source.witness("perturbed_tokens_from"))) {
        token = int(*from);
        which = "first of the witness's suffix";
    }
    c.transform.token = std::clamp(token, 0, std::max(0, s.n() - 1));
    c.summary = source.displayName + ": " + c.transform.describe() + " (" + which + ")";
    return c;
}

} // namespace attnlab
