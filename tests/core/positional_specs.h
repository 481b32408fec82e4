// SPDX-License-Identifier: GPL-3.0-or-later
// PositionalSpecs for the positional tests: a kind at an offset, and RoPE at a base.
#pragma once

#include "core/spec/positional.h"

namespace attnlab::test {

inline PositionalSpec positional(PositionalSpec::Kind kind, long offset = 0) {
    PositionalSpec spec;
    spec.kind = kind;
    spec.offset = offset;
    return spec;
}

/// RoPE with this base, pairs interleaved, every coordinate rotated, no scaling.
inline PositionalSpec rope(double base) {
    PositionalSpec spec = positional(PositionalSpec::Kind::Rope);
    spec.base = base;
    return spec;
}

} // namespace attnlab::test
