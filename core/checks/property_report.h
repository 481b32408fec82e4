// SPDX-License-Identifier: GPL-3.0-or-later
// What a property check returns (properties.md §3): the verdict, the largest deviation, the
// tolerance and why, what was checked, the typed witness (and its shrunk form) and the cause.
#pragma once

#include "core/checks/order_difference.h"
#include "core/checks/report_number.h"
#include "core/checks/witness.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace attnlab {

enum class Verdict { Holds, Fails, NotApplicable };

struct PropertyReport {
    std::string name;
    Verdict verdict = Verdict::NotApplicable;
    bool exact = false;
    ReportNumber maxDeviation;                         // none when not applicable
    ReportNumber tolerance;                            // likewise
    std::string toleranceRule;                         // how the tolerance was derived
    nlohmann::json checked = nlohmann::json::object(); // what and how much was checked
    std::optional<Witness> witness;                    // none when the property holds
    std::optional<Witness> shrunkWitness; // the smallest failing form, when shrinking applies
    nlohmann::json details = nlohmann::json::object(); // e.g. dependency maps
    /// For checks comparing two evaluations that differ only in the order of their sums.
    std::optional<OrderDifference> difference;
    std::string explanation;
};

/// The `check --json` entry of cli.md ("holds" is null when not applicable).
nlohmann::json reportJson(const PropertyReport& report);
/// "holds", "fails" or "not applicable".
const char* verdictName(Verdict verdict);

} // namespace attnlab
