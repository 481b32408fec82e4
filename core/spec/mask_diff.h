// SPDX-License-Identifier: GPL-3.0-or-later
// Two masks compared cell by cell: which entries only the first allows, only the second, both
// or neither, with the counts. Off-by-one windows show up here as a band of one-sided cells.
#pragma once

#include "core/base/scalar.h"

#include <vector>

namespace attnlab {

/// Ordered so that a larger value is the more important one to keep visible.
enum class DiffCell : unsigned char { Neither, Both, OnlyA, OnlyB };

struct MaskDiff {
    int rows = 0, cols = 0;
    std::vector<DiffCell> cells; // row-major, rows x cols
    long long onlyA = 0, onlyB = 0, both = 0, neither = 0;

    /// The comparison at query s, key t.
    DiffCell at(int s, int t) const { return cells[std::size_t(s) * cols + t]; }
    /// True when the two masks allow exactly the same entries.
    bool identical() const { return onlyA == 0 && onlyB == 0; }
    /// The entries one mask allows and the other does not.
    long long differing() const { return onlyA + onlyB; }
    /// The entries the first (second) mask allows.
    long long allowedByA() const { return both + onlyA; }
    long long allowedByB() const { return both + onlyB; }
};

/// Compares `a` with `b` entry by entry. Throws InputError when their shapes differ.
MaskDiff diffMasks(const BoolMatrix& a, const BoolMatrix& b);

} // namespace attnlab
