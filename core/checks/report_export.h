// SPDX-License-Identifier: GPL-3.0-or-later
// A set of verdicts as a document: the JSON of `attnlab-cli check --json` (cli.md) and a Markdown
// table with each explanation and witness, for the explorer's "Export verdicts", and one verdict
// as a line of text.
#pragma once

#include "core/base/scalar.h"
#include "core/checks/property_report.h"

#include <string>
#include <vector>

namespace attnlab {

/// `ran` says where the model ran (run_report.h's backendJson shape); its fields are kept.
nlohmann::json checkReportJson(Precision precision, const nlohmann::json& ran,
                               const std::vector<PropertyReport>& reports);
std::string checkReportMarkdown(const std::string& scenarioName, Precision precision,
                                const nlohmann::json& ran,
                                const std::vector<PropertyReport>& reports);
/// One line for a figure's caption: "permutation-equivariance fails: max deviation 3/7,
/// tolerance 0" (long fractions rounded), or "... not applicable".
std::string verdictLine(const PropertyReport& report);

} // namespace attnlab
