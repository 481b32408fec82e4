// SPDX-License-Identifier: GPL-3.0-or-later
// A scenario: everything needed to recompute a view and its verdicts (scenario-format.md):
// tokens, model, the transformation (a permutation), the checks to run and an optional batch.
#pragma once

#include "core/spec/backend_choice.h"
#include "core/spec/model_spec.h"
#include "core/spec/permutation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

/// A permutation as the file states it, kept in that form so saving gives the same file back.
struct PermutationSpec {
    enum class Kind { Identity, Images, Cycles, Reverse, Random };
    Kind kind = Kind::Identity;
    std::vector<int> images; // images
    std::string cycles;      // cycles
    std::uint64_t seed = 0;  // random

    bool isSet() const { return kind != Kind::Identity; }
    /// The permutation of 0..n-1; throws InputError when it is not a bijection of that range.
    Permutation resolve(int n) const;
    /// The same permutation for n tokens: unchanged when it still resolves; images gain fixed
    /// points when n grows and keep the first n images when they still form a bijection;
    /// otherwise the identity.
    PermutationSpec resizedTo(int n) const;
    bool operator==(const PermutationSpec&) const = default;
};

/// A property to check, with its parameters (names and parameters: cli.md).
struct CheckSpec {
    std::string name;
    nlohmann::json params = nlohmann::json::object();
    bool operator==(const CheckSpec&) const = default;
};

struct Scenario {
    std::string name;
    std::string notes;
    Precision precision = Precision::Float64;
    /// Where to compute (set by the caller, e.g. `--backend`; not part of the file or of ==).
    BackendChoice backend = BackendChoice::Cpu;
    TokenSpec tokens;
    ModelSpec model;
    PermutationSpec permutation;
    std::vector<CheckSpec> checks;
    std::vector<Matrix<Rational>> batch;

    int n() const { return tokens.rows(); }
    int d() const { return tokens.cols(); }
    /// Checks everything that depends on more than one field: shapes through the layers, masks
    /// against n, the permutation against n, the batch widths, the precision against mixers and
    /// positions. Throws InputError naming the JSON path.
    void validate() const;

    bool operator==(const Scenario& o) const;
};

} // namespace attnlab
