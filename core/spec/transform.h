// The transformation the explorer applies to a scenario's input to compare two sides: the
// scenario's permutation σ (X -> P_σ X), a position shift (positions i -> i + c), or a
// perturbation of one token entry (X[t][j] += δ).
#pragma once

#include "core/base/scalar.h"

#include <string>

namespace attnlab {

struct Transform {
    enum class Kind { Permutation, Shift, Perturbation };
    Kind kind = Kind::Permutation;
    long shift = 1;     // Shift: c
    int token = 0;      // Perturbation: t
    int feature = 0;    // Perturbation: j
    Rational delta = 1; // Perturbation: δ

    /// e.g. "permutation", "shift by 3", "X[2][0] += 1/2".
    std::string describe() const;
    bool operator==(const Transform&) const = default;
};

} // namespace attnlab
