// SPDX-License-Identifier: GPL-3.0-or-later
// What a computation will hold in memory and how costly exact arithmetic will be, estimated from
// the scenario before anything is allocated, so that an impossible request is refused with its
// size named instead of exhausting the machine.
#pragma once

#include "core/model/scenario.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attnlab {

/// The most memory the per-head n x n maps of one request may take (8 GiB).
inline constexpr std::uint64_t kMapMemoryLimit = 8ull << 30;

/// Bytes the scores and weights of every layer and head take for `sides` forward passes that
/// keep their maps, in the scenario's precision (exact entries counted at 64 bytes).
std::uint64_t mapBytes(const Scenario& scenario, int sides);
/// Throws InputError naming the size when keeping the maps of `sides` passes exceeds the limit.
void checkMapMemory(const Scenario& scenario, int sides);
/// Multiply-adds of one forward pass, estimated from the shapes (projections, the layers'
/// ffn and MLP, and every head's n x n products), before any weight is read.
double forwardMultiplyAdds(const Scenario& scenario);
/// The multiply-adds the explorer spends on every edit to check every property: the slowest
/// checks sweep about n forward passes, so the budget is n times a forward. Above
/// kEveryCheckBudget only the scenario's own checks run on an edit, the rest on "Run all".
inline constexpr double kEveryCheckBudget = 2e10;
bool checksEveryPropertyOnEdit(const Scenario& scenario);
/// In exact mode, a warning when the rationals are likely to grow very long (many tokens through
/// normalising layers, long ssm scans, deep stacks); nothing otherwise.
std::optional<std::string> exactCostWarning(const Scenario& scenario);

} // namespace attnlab
