// SPDX-License-Identifier: GPL-3.0-or-later
// Building a property report step by step.
#include "core/checks/report_builder.h"

namespace attnlab {

std::string joinedCauses(const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& p : parts)
        text += (text.empty() ? "" : "; ") + p;
    return text;
}

ReportBuilder& ReportBuilder::settleOn(bool exact, ReportNumber deviation, ReportNumber tolerance,
                                       std::string rule, bool fails) {
    report_.exact = exact;
    report_.maxDeviation = std::move(deviation);
    report_.tolerance = std::move(tolerance);
    report_.toleranceRule = std::move(rule);
    report_.verdict = fails ? Verdict::Fails : Verdict::Holds;
    return *this;
}

ReportBuilder& ReportBuilder::extendToleranceRule(const std::string& more) {
    report_.toleranceRule += more;
    return *this;
}

ReportBuilder& ReportBuilder::fail() {
    report_.verdict = Verdict::Fails;
    return *this;
}

ReportBuilder& ReportBuilder::checked(nlohmann::json checked) {
    report_.checked = std::move(checked);
    return *this;
}

ReportBuilder& ReportBuilder::checked(const std::string& key, nlohmann::json value) {
    report_.checked[key] = std::move(value);
    return *this;
}

ReportBuilder& ReportBuilder::details(nlohmann::json details) {
    report_.details = std::move(details);
    return *this;
}

ReportBuilder& ReportBuilder::witness(Witness witness) {
    report_.witness = std::move(witness);
    return *this;
}

ReportBuilder& ReportBuilder::shrunkWitness(std::optional<Witness> witness) {
    report_.shrunkWitness = std::move(witness);
    return *this;
}

ReportBuilder& ReportBuilder::explain(const std::string& whenHolds, const std::string& whenFails) {
    return explain(fails() ? whenFails : whenHolds);
}

ReportBuilder& ReportBuilder::explain(std::string explanation) {
    report_.explanation = std::move(explanation);
    return *this;
}

} // namespace attnlab
