// SPDX-License-Identifier: GPL-3.0-or-later
// Which comparison the explorer draws for a property, so that the three columns show what the
// check compares: f(P X) beside P f(X) for equivariance, S beside Sᵀ for logit symmetry, the
// shifted positions for shift invariance, the witness's perturbed token for locality and
// causality, the decode step for kv-cache, tiles or chunks beside the reference evaluation, the
// split, batched or unmasked evaluation beside the whole one for the batch properties. A
// comparison is a small description (kind, the transformation, titles, a note) that the window and
// the command line can both evaluate.
#pragma once

#include "core/checks/property_report.h"
#include "core/explore/side_by_side.h"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

struct PropertyComparison {
    /// Split: the same tokens evaluated another way (split across parts, inside a batch, in a
    /// worker's half of it, on the unmasked code path), as `property` says.
    enum class Kind { Transform, Transpose, Blocks, Split };
    Kind kind = Kind::Transform;
    std::string property;
    Transform transform;                        // Kind::Transform
    std::optional<PermutationSpec> permutation; // replaces the scenario's σ (Kind::Transform)
    int blockSize = 0;      // Kind::Blocks: tiles of this length (tiling) or chunks (chunkwise)
    int parts = 1;          // Kind::Split, tensor-parallel: the model split across this many parts
    std::uint64_t seed = 0; // Kind::Split, batch properties: the seed the check drew its batch from
    /// Drawn on these tokens only, in this order (a shrunk witness's); empty: every token.
    std::vector<int> tokens;
    /// Says what is compared, e.g. "causality: X[4][0] += 1 (the last token)".
    std::string summary;
    /// Added to the warnings: what the check compares when the maps cannot show it, or why
    /// both sides are the same.
    std::string note;
    bool operator==(const PropertyComparison&) const = default;
    /// Whether `other` evaluates the same maps: everything but the words (summary, note), and
    /// the property only where it decides the evaluation (blocks: tiles or chunks; split: how).
    bool drawsSameAs(const PropertyComparison& other) const;
};

/// The comparison that shows `property` on `scenario`, taking its witness (the perturbed token,
/// the shift, the decode step, the failing σ) from `report` when one is given; with `shrunk`,
/// the report's shrunk witness, drawn on the few tokens it keeps. A property
/// without a comparison of its own gets the scenario's permutation and a note saying what its
/// check compares. Never throws: parameters the check would refuse are left at their defaults.
PropertyComparison comparisonFor(const Scenario& scenario, const std::string& property,
                                 const PropertyReport* report = nullptr, bool shrunk = false);

/// Computes `comparison` on `scenario` (on its `tokens` only, when it names some, labelled by
/// their indices in the scenario): its sides titled with the property. Throws InputError as
/// compareSides does (e.g. a mask file that fits only the whole sequence).
SideBySide compare(const Scenario& scenario, const PropertyComparison& comparison);

} // namespace attnlab
