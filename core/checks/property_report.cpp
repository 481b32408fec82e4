// SPDX-License-Identifier: GPL-3.0-or-later
// A report's JSON form (cli.md) and the names of verdicts.
#include "core/checks/property_report.h"

namespace attnlab {

const char* verdictName(Verdict verdict) {
    switch (verdict) {
    case Verdict::Holds:
        return "holds";
    case Verdict::Fails:
        return "fails";
    case Verdict::NotApplicable:
        break;
    }
    return "not applicable";
}

nlohmann::json reportJson(const PropertyReport& r) {
    nlohmann::json j = {{"name", r.name},
                        {"holds", r.verdict == Verdict::NotApplicable
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(r.verdict == Verdict::Holds)},
                        {"verdict", verdictName(r.verdict)},
                        {"exact", r.exact},
                        {"max_deviation", r.maxDeviation.json()},
                        {"tolerance", r.tolerance.json()},
                        {"tolerance_rule", r.toleranceRule},
                        {"checked", r.checked},
                        {"witness", r.witness ? r.witness->json() : nlohmann::json()},
                        {"explanation", r.explanation}};
    if (r.shrunkWitness) j["shrunk_witness"] = r.shrunkWitness->json();
    if (!r.details.empty()) j["details"] = r.details;
    if (r.difference) j["difference"] = r.difference->json();
    return j;
}

} // namespace attnlab
