// SPDX-License-Identifier: GPL-3.0-or-later
// How two evaluations that are equal in exact arithmetic and differ only in the order of their
// sums (a split into parts, a batch) differ: not at all, by rounding, or by more; with its JSON
// form in a report (cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

namespace attnlab {

struct OrderDifference {
    enum class Kind { None, Rounding, BeyondRounding };
    Kind kind = Kind::None;
    /// Float modes, within the tolerance: how many ulps apart the values with the largest
    /// difference are.
    std::optional<long> ulps;

    /// {"kind": "none" | "rounding" | "beyond rounding", "ulps": k when known}.
    nlohmann::json json() const;
};

} // namespace attnlab
