// Building a property report step by step.
#include "core/checks/report_builder.h"

namespace attnlab {

std::string joinedCauses(const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& p : parts)
        text += (text.empty() ? "" : "; ") + p;
    return text;
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
