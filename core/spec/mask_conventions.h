// SPDX-License-Identifier: GPL-3.0-or-later
// The sliding-window and causal conventions of popular attention libraries, as MaskSpecs.
// The same number means different windows in different libraries ("radius r" gives 2r+1 keys,
// "W keys" gives W); comparing them in a mask diff shows the off-by-one band.
#pragma once

#include "core/spec/mask.h"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

enum class MaskConvention {
    WindowRadius,       // |s−t| ≤ r: 2r+1 keys
    WindowKeysCentred,  // W keys centred on the query: s−⌊W/2⌋ ≤ t ≤ s+⌈W/2⌉−1
    CausalWindowRadius, // s−r ≤ t ≤ s: r+1 keys
    CausalWindowKeys,   // s−W < t ≤ s: W keys (Mistral, flash-attn window_size=(W−1, 0))
    CausalTopLeft,      // t ≤ s, aligned at the top-left corner
    CausalBottomRight   // t ≤ s + (keys − queries), aligned at the bottom-right corner
};

/// The square mask of convention `c` with parameter k (the radius r or the key count W; unused
/// by the causal alignments, which coincide on a square mask). Throws InputError for r < 0 or
/// W < 1.
MaskSpec conventionMask(MaskConvention c, int k);
/// The keys an interior query (away from the sequence edges) gets: 2r+1, W, r+1, W; for the
/// causal alignments -1 (it grows with the row).
int conventionKeys(MaskConvention c, int k);
/// A one-line statement of the convention at k, e.g. "inclusive radius r = 2: |s−t| ≤ 2 (5 keys)".
std::string conventionLabel(MaskConvention c, int k);

/// Two conventions that are easily confused, and why.
struct ConventionPair {
    MaskConvention a, b;
    std::string title; // e.g. "sliding window: inclusive radius r vs W keys centred"
    std::string note;  // where each is used, what goes wrong
};
/// The presets the mask diff offers.
const std::vector<ConventionPair>& conventionPairs();

/// Where a mask stands among the pairs: its pair (index into conventionPairs()), whose first
/// convention it is, at the number k it is written with (-1 for the alignments: no number).
struct ConventionMatch {
    std::size_t pair;
    int k;
};
/// window(r) is the first of the sliding-window pair at k = r, causal_window(r) the first of
/// the causal pair at k = r, causal the first of the alignments; other masks match none.
std::optional<ConventionMatch> conventionOf(const MaskSpec& mask);

enum class CausalAlignment { TopLeft, BottomRight };
/// A causal mask of `queries` x `keys`: top-left allows t ≤ s, bottom-right t ≤ s + keys −
/// queries (the last query sees every key, as when decoding with a KV cache). Throws
/// InputError for a negative length.
BoolMatrix rectangularCausal(int queries, int keys, CausalAlignment alignment);
/// "bottom-right" or "top-left".
std::string alignmentName(CausalAlignment alignment);
/// The alignment called `name` ("bottom-right", "top-left"); throws InputError naming `field`.
CausalAlignment parseAlignment(const std::string& name, const std::string& field = "alignment");

} // namespace attnlab
