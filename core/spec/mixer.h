// SPDX-License-Identifier: GPL-3.0-or-later
// Mixers (properties.md §1.1-1.2) as a user states them: how one head turns scores into weights
// and mixes the values. softmax, softmax_like and raw work on scores S = c·Q·Kᵀ + B under a mask;
// ssm(a) is the linear-recurrence scan, causal or bidirectional, recurrent or chunkwise. The
// evaluation of a head is core/backend/head_forward.h.
#pragma once

#include "core/base/scalar.h"

#include <optional>
#include <string>

namespace attnlab {

struct MixerSpec {
    enum class Kind { Softmax, SoftmaxLike, Raw, Ssm };
    Kind kind = Kind::Softmax;
    std::optional<Rational> scale; // empty: the default (1/sqrt(p) for softmax, 1 otherwise)
    int tile = 0;                  // > 0: evaluate the output over key tiles of this length
    Rational a = 1;                // ssm decay
    bool bidirectional = false;    // ssm
    int chunk = 0;                 // ssm: > 0 evaluates chunkwise

    /// "softmax", "ssm(a=1/2, bidirectional)", ...
    std::string describe() const;
    /// Throws InputError when the mixer needs exp in exact mode.
    void checkPrecision(Precision precision) const;
    bool operator==(const MixerSpec&) const = default;
};

/// "softmax", "softmax_like", "raw" or "ssm".
std::string mixerKindName(MixerSpec::Kind kind);

} // namespace attnlab
