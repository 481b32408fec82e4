// SPDX-License-Identifier: GPL-3.0-or-later
// Attention masks (M[s][t] = true: query s may attend to key t): the catalogue of
// properties.md §1.5 as a small expression tree, its evaluation, all-masked rows, and the
// reachability through a stack of layers that bounds locality.
#pragma once

#include "core/base/scalar.h"

#include <string>
#include <vector>

namespace attnlab {

struct MaskSpec {
    enum class Kind {
        All,
        None,
        Causal,
        Window,
        CausalWindow,
        Prefix,
        Blocks,
        Dilated,
        Global,
        Custom,
        And,
        Or,
        Not
    };
    Kind kind = Kind::All;
    int radius = 0;                 // window, causal_window, dilated
    int dilation = 1;               // dilated
    int length = 0;                 // prefix
    int count = 0;                  // global
    std::vector<int> sizes;         // blocks
    BoolMatrix cells;               // custom
    std::string file;               // custom read from a .npy (absolute path); else empty
    std::vector<MaskSpec> operands; // and/or (≥1), not (1), global (its base)

    static MaskSpec all() { return {}; }
    static MaskSpec none() { return withKind(Kind::None); }
    static MaskSpec causal() { return withKind(Kind::Causal); }
    static MaskSpec window(int r);
    static MaskSpec causalWindow(int r);
    static MaskSpec prefix(int p);
    static MaskSpec blocks(std::vector<int> sizes);
    static MaskSpec dilated(int r, int k);
    static MaskSpec global(int g, MaskSpec base);
    static MaskSpec custom(BoolMatrix cells);
    /// Custom cells read from the .npy at `file` (kept so that a scenario refers to the file).
    static MaskSpec fromFile(BoolMatrix cells, std::string file);
    static MaskSpec both(std::vector<MaskSpec> masks);
    static MaskSpec either(std::vector<MaskSpec> masks);
    static MaskSpec negation(MaskSpec mask);

    /// Whether query s may attend to key t in a sequence of n tokens (no n x n matrix needed
    /// except for custom masks). Call `validate(n)` first.
    bool allowed(int s, int t, int n) const;
    /// Throws InputError when the mask cannot apply to n tokens (custom of another size,
    /// block sizes that do not add up to n).
    void validate(int n) const;
    /// True when every entry is allowed for every n (kind all, or combinations that reduce to it).
    bool isAll() const { return kind == Kind::All; }
    /// The catalogue name, e.g. "window(2)", "and(causal, window(3))", "file(m.npy)".
    std::string describe() const;

    bool operator==(const MaskSpec& other) const;

private:
    static MaskSpec withKind(Kind k) {
        MaskSpec m;
        m.kind = k;
        return m;
    }
};

/// The n x n boolean matrix of `spec`; validates first.
BoolMatrix buildMask(const MaskSpec& spec, int n);
/// Rows with no allowed key (the classic mask bug: those rows produce zeros).
std::vector<int> allMaskedRows(const BoolMatrix& mask);
/// Boolean product A∘B: (A∘B)[s][t] = ∃u A[s][u] ∧ B[u][t].
BoolMatrix booleanProduct(const BoolMatrix& a, const BoolMatrix& b);
/// Which inputs each output can depend on through a stack of layers with these key masks,
/// first layer first: the boolean product of (M_l ∨ I), because a query always reads its own
/// token. With generic weights this bound is attained.
BoolMatrix reachability(const std::vector<BoolMatrix>& layerMasks);
/// The largest |s - t| over true entries (-1 when there is none).
int dependencyRadius(const BoolMatrix& map);

} // namespace attnlab
