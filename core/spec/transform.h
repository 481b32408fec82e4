// SPDX-License-Identifier: GPL-3.0-or-later
// The transformation the explorer applies to a scenario's input to compare two sides: the
// scenario's permutation σ (X -> P_σ X), a position shift (positions i -> i + c), a
// perturbation of one token entry (X[t][j] += δ), or a decode step that computes the last m
// tokens against a KV cache of the others (core/model/decode.h).
#pragma once

#include "core/base/scalar.h"
#include "core/spec/mask_conventions.h"

#include <string>

namespace attnlab {

struct Transform {
    enum class Kind { Permutation, Shift, Perturbation, Decode };
    Kind kind = Kind::Permutation;
    long shift = 1;                                           // Shift: c
    int token = 0;                                            // Perturbation: t
    int feature = 0;                                          // Perturbation: j
    Rational delta = 1;                                       // Perturbation: δ
    int queries = 1;                                          // Decode: m
    CausalAlignment alignment = CausalAlignment::BottomRight; // Decode
    std::string maskFile; // Decode: an m x n .npy mask replacing the aligned rows; empty: none

    /// e.g. "permutation", "shift by 3", "X[2][0] += 1/2", "decode 4 queries against a KV
    /// cache of 12 (bottom-right)" (the cache's size when the sequence length n is given).
    std::string describe(int n = -1) const;
    bool operator==(const Transform&) const = default;
};

} // namespace attnlab
