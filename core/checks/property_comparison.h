// SPDX-License-Identifier: GPL-3.0-or-later
// What the explorer draws while a property is followed, so that the three columns show what its
// check compares: f(P X) beside P f(X) for equivariance, S beside Sᵀ for logit symmetry, the
// shifted positions for shift invariance, the witness's perturbed token for locality and
// causality, the decode step for kv-cache, tiles or chunks beside the reference evaluation, the
// split, batched or unmasked evaluation beside the whole one for the batch properties. A
// comparison is a small description (kind, the transformation, titles, a note): each property's
// unit chooses it (property_unit.h), and core/explore's compare() evaluates it for the window
// and the command line alike.
#pragma once

#include "core/checks/property_report.h"
#include "core/model/scenario.h"
#include "core/spec/transform.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

struct PropertyComparison {
    /// Transform: the scenario's inputs transformed (a permutation, a shift, a perturbed token,
    /// a decode step). Transpose: S beside Sᵀ. Blocks: evaluated in tiles or chunks. Split: the
    /// same tokens evaluated another way (`split` says how).
    enum class Kind { Transform, Transpose, Blocks, Split };
    /// Kind::Blocks: attention over key tiles, or ssm scans in chunks.
    enum class BlockKind { Tiles, Chunks };
    /// Kind::Split: the model split across `parts`; the tokens inside a batch; in a worker's
    /// half of the batch; on the unmasked code path.
    enum class SplitKind { TensorParallel, Batch, DataParallel, Unmasked };
    Kind kind = Kind::Transform;
    /// The property's name as the window shows it, for the texts (never to choose the maps).
    std::string property;
    Transform transform;                         // Kind::Transform
    std::optional<PermutationSpec> permutation;  // replaces the scenario's σ (Kind::Transform)
    BlockKind blocks = BlockKind::Tiles;         // Kind::Blocks
    int blockSize = 0;                           // Kind::Blocks: tiles or chunks of this length
    SplitKind split = SplitKind::TensorParallel; // Kind::Split
    int parts = 1;          // SplitKind::TensorParallel: the model split across this many parts
    std::uint64_t seed = 0; // Kind::Split, batch properties: the seed the check drew its batch from
    /// Drawn on these tokens only, in this order (a shrunk witness's); empty: every token.
    std::vector<int> tokens;
    /// Says what is compared, e.g. "causality: X[4][0] += 1 (the last token)".
    std::string summary;
    /// Added to the warnings: what the check compares when the maps cannot show it, or why
    /// both sides are the same.
    std::string note;
    bool operator==(const PropertyComparison&) const = default;
    /// Whether `other` evaluates the same maps: everything but the words (property, summary,
    /// note).
    bool drawsSameAs(const PropertyComparison& other) const;
};

/// What a property's comparison is chosen from: the scenario, the property, and its check's
/// report when one is given (the witness: the perturbed token, the shift, the failing σ, ...).
struct ComparisonSource {
    const Scenario& scenario;
    const PropertyReport* report = nullptr;
    std::string name;        // the check's name, as the scenario's checks list it
    std::string displayName; // what the texts call it

    /// The witness's value of `key` (null without a witness or such a key).
    const nlohmann::json& witness(const std::string& key) const;
    /// What the report says it checked under `key` (null without a report or such a key).
    const nlohmann::json& checked(const std::string& key) const;
    /// The scenario's parameter `key` of this property's check (null when it sets none).
    const nlohmann::json& parameter(const std::string& key) const;
};

/// The first integer of `value` (an integer or a list of them), if any.
std::optional<long> firstInteger(const nlohmann::json& value);

/// f(P X) beside P f(X): σ the scenario's permutation, else the witness's, else the reversal.
/// Equivariance's comparison, and what a property without one of its own is drawn with.
PropertyComparison permutationComparison(const ComparisonSource& source);

/// For a property whose check compares something the maps cannot draw yet (`what`, e.g. "the
/// reverse pass with finite differences"): the permutation, with a note saying so.
PropertyComparison undrawnComparison(const ComparisonSource& source, const std::string& what);

} // namespace attnlab
