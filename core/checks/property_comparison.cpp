// SPDX-License-Identifier: GPL-3.0-or-later
// Comparing comparisons, reading what one is chosen from, and the permutation's comparison.
#include "core/checks/property_comparison.h"

namespace attnlab {

namespace {

const nlohmann::json& valueOf(const nlohmann::json& object, const std::string& key) {
    static const nlohmann::json none;
    return object.contains(key) ? object.at(key) : none;
}

} // namespace

bool PropertyComparison::drawsSameAs(const PropertyComparison& other) const {
    PropertyComparison a = *this, b = other;
    for (PropertyComparison* c : {&a, &b}) {
        c->property.clear();
        c->summary.clear();
        c->note.clear();
    }
    return a == b;
}

const nlohmann::json& ComparisonSource::witness(const std::string& key) const {
    static const nlohmann::json none;
    return report && report->witness ? report->witness->value(key) : none;
}

const nlohmann::json& ComparisonSource::checked(const std::string& key) const {
    static const nlohmann::json none;
    return report ? valueOf(report->checked, key) : none;
}

const nlohmann::json& ComparisonSource::parameter(const std::string& key) const {
    static const nlohmann::json none;
    for (const CheckSpec& check : scenario.checks)
        if (check.name == name && check.params.contains(key)) return check.params.at(key);
    return none;
}

std::optional<long> firstInteger(const nlohmann::json& value) {
    if (value.is_number_integer()) return value.get<long>();
    if (value.is_array() && !value.empty() && value.front().is_number_integer())
        return value.front().get<long>();
    return std::nullopt;
}

PropertyComparison permutationComparison(const ComparisonSource& source) {
    const Scenario& s = source.scenario;
    const std::string& property = source.displayName;
    PropertyComparison c;
    const nlohmann::json& images = source.witness("permutation");
    if (s.permutation.isSet()) {
        c.summary =
            property + ": f(P X) beside P f(X), σ = " + s.permutation.resolve(s.n()).cycles();
    } else if (images.is_array() && int(images.size()) == s.n()) {
        c.permutation = PermutationSpec();
        c.permutation->kind = PermutationSpec::Kind::Images;
        c.permutation->images = images.get<std::vector<int>>();
        c.summary = property + ": the witness's σ = " + c.permutation->resolve(s.n()).cycles();
    } else {
        c.permutation = PermutationSpec();
        c.permutation->kind = PermutationSpec::Kind::Reverse;
        c.summary = property + ": σ reverses the tokens (the scenario sets none)";
    }
    return c;
}

PropertyComparison undrawnComparison(const ComparisonSource& source, const std::string& what) {
    PropertyComparison c = permutationComparison(source);
    c.note = source.displayName + " compares " + what +
             "; not drawn as maps yet, so the views show the permutation";
    return c;
}

} // namespace attnlab
