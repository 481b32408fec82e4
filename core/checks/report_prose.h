// SPDX-License-Identifier: GPL-3.0-or-later
// A report's `checked` and `witness` in words for a reader: what was tried as a sentence, the
// witness as a sentence in the terms of the maps ("σ = (0 1): row 0 of f(P X) is 1, row 1 of f(X)
// is 14/9"), and its other values as a small table of labelled rows. Long values (a permutation
// of 8,192 tokens, a list of every offset) are summarised; the JSON keeps every digit.
#pragma once

#include "core/checks/property_report.h"

#include <string>
#include <utility>
#include <vector>

namespace attnlab {

struct ReportProse {
    std::string checked; // "2 permutations planned, all of them (every one there is); …"
    std::string witness; // the witness's sentence; empty without a witness
    /// The witness's values the sentence does not say, as (label, value) rows.
    std::vector<std::pair<std::string, std::string>> table;
};

/// `report` in words; with `shrunk`, its shrunk witness (when it has one).
ReportProse describeReport(const PropertyReport& report, bool shrunk = false);

/// A JSON value as a reader's text: strings bare, numbers to 6 significant digits, lists longer
/// than a few entries summarised ("[5, 4, 3, …, 0] (8,192 entries)"), objects as "key: value".
std::string readableValue(const nlohmann::json& value);

} // namespace attnlab
