// SPDX-License-Identifier: GPL-3.0-or-later
// The positional information of a scenario on its own, as the explorer's Positions page draws it:
// the table an absolute method adds to the tokens, the bias ALiBi adds to one head's scores, or
// the angles RoPE rotates one head's query and key pairs by; and one row of a head's scores
// against the offset t − s between query and key, the picture that tells relative positions
// (the same curve in every row) from absolute ones.
#pragma once

#include "core/explore/side_by_side.h"
#include "core/spec/positional.h"

#include <string>
#include <vector>

namespace attnlab {

struct PositionalTerm {
    std::string title;       // "ALiBi bias of head 1: −(1/16)·|t − s|"
    std::string rowAxis;     // "position i", "query t"
    std::string columnAxis;  // "feature j", "key s", "pair k"
    ViewMatrix matrix;       // empty when the method has no term to draw
    std::string explanation; // what the term does, in one or two sentences
};

/// The positional term of `spec` for n tokens of width d, as seen by head `head` of `heads`
/// whose query width is `headWidth`; at most kViewLimit positions are drawn (the title says
/// so when n is larger). A table the method cannot make (polynomial needs d = 3) reads as an
/// empty matrix with the reason in the explanation.
PositionalTerm positionalTerm(const PositionalSpec& spec, int n, int d, int head, int heads,
                              int headWidth);

/// One row of scores against the offset t − s of each key s from the query t = `row`; keys the
/// mask hides (when `mask` has the matrix's shape) are left out. Empty when the row is outside
/// the matrix or the matrix is pooled (its columns are blocks, not keys).
struct OffsetCurve {
    std::vector<double> offsets, scores;
};
OffsetCurve scoresByOffset(const ViewMatrix& scores, const BoolMatrix& mask, int row);

} // namespace attnlab
