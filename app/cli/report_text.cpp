// SPDX-License-Identifier: GPL-3.0-or-later
// Property reports as text (report_text.h).
#include "report_text.h"

#include <ostream>

namespace attnlab::cli {

void printReports(std::ostream& out, const std::vector<PropertyReport>& reports) {
    for (const auto& r : reports) {
        out << (r.verdict == Verdict::Holds   ? "HOLDS "
                : r.verdict == Verdict::Fails ? "FAILS "
                                              : "n/a   ")
            << r.name;
        if (r.verdict != Verdict::NotApplicable)
            out << "  (max deviation " << r.maxDeviation.text() << ", tolerance "
                << r.tolerance.text() << ")";
        out << "\n      " << r.explanation << "\n";
        if (r.witness) out << "      witness: " << r.witness->json().dump() << "\n";
        if (r.shrunkWitness) out << "      shrunk:  " << r.shrunkWitness->json().dump() << "\n";
        if (!r.checked.empty()) out << "      checked: " << r.checked.dump() << "\n";
    }
}

bool anyFails(const std::vector<PropertyReport>& reports) {
    for (const auto& r : reports)
        if (r.verdict == Verdict::Fails) return true;
    return false;
}

} // namespace attnlab::cli
