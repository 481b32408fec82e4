// SPDX-License-Identifier: GPL-3.0-or-later
// Property reports as the text `check` and `probe` print: a verdict line each, with the
// deviation and tolerance, the explanation, the witness, the shrunk witness and what was checked.
#pragma once

#include "core/checks/property_report.h"

#include <iosfwd>
#include <vector>

namespace attnlab::cli {

void printReports(std::ostream& out, const std::vector<PropertyReport>& reports);
/// Whether one of them fails (the exit status 1).
bool anyFails(const std::vector<PropertyReport>& reports);

} // namespace attnlab::cli
