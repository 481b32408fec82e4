// SPDX-License-Identifier: GPL-3.0-or-later
// Writing verdicts as JSON or Markdown.
#include "core/checks/report_export.h"

#include "core/formats/short_number.h"

#include <sstream>

namespace attnlab {

nlohmann::json checkReportJson(Precision precision, const nlohmann::json& ran,
                               const std::vector<PropertyReport>& reports) {
    nlohmann::json list = nlohmann::json::array();
    for (const PropertyReport& r : reports)
        list.push_back(reportJson(r));
    nlohmann::json result = ran;
    result["precision"] = precisionName(precision);
    result["properties"] = list;
    return result;
}

std::string checkReportMarkdown(const std::string& scenarioName, Precision precision,
                                const nlohmann::json& ran,
                                const std::vector<PropertyReport>& reports) {
    const std::string backend = ran.value("backend", std::string("cpu"));
    std::ostringstream out;
    out << "# Verdicts: " << (scenarioName.empty() ? "(unnamed scenario)" : scenarioName) << "\n\n"
        << "Precision " << precisionName(precision) << ", backend " << backend << ".\n\n"
        << "| property | verdict | max deviation | tolerance |\n|---|---|---|---|\n";
    for (const PropertyReport& r : reports)
        out << "| " << r.name << " | " << verdictName(r.verdict) << " | " << r.maxDeviation.text()
            << " | " << r.tolerance.text() << " |\n";
    for (const PropertyReport& r : reports) {
        out << "\n## " << r.name << " — " << verdictName(r.verdict) << "\n\n"
            << r.explanation << "\n";
        if (!r.toleranceRule.empty()) out << "\nTolerance: " << r.toleranceRule << "\n";
        if (!r.checked.empty()) out << "\nChecked: `" << r.checked.dump() << "`\n";
        if (r.witness) out << "\nWitness: `" << r.witness->json().dump() << "`\n";
        if (r.shrunkWitness)
            out << "\nSmallest witness: `" << r.shrunkWitness->json().dump() << "`\n";
    }
    return out.str();
}

std::string verdictLine(const PropertyReport& report) {
    const auto number = [](const ReportNumber& n) {
        return n.isExact() || n.isFloat() ? shortCellText(n.text(), n.toDouble(), 7) : "none";
    };
    std::string line = report.name + " " + verdictName(report.verdict);
    if (report.verdict == Verdict::NotApplicable) return line;
    return line + ": max deviation " + number(report.maxDeviation) + ", tolerance " +
           number(report.tolerance);
}

} // namespace attnlab
