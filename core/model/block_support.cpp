// SPDX-License-Identifier: GPL-3.0-or-later
// The block spans of where a matrix may be non-zero.
#include "core/model/block_support.h"

#include <algorithm>

namespace attnlab {

namespace {

// The span of `along` indices used by any entry in each block of kBlock lines, where
// `used(line, index)` says whether the entry is marked; empty spans for blocks with none.
template <class Used>
std::vector<BlockSupport::Span> spansOf(Eigen::Index lines, Eigen::Index along, Used&& used) {
    std::vector<BlockSupport::Span> spans;
    for (Eigen::Index first = 0; first < lines; first += BlockSupport::kBlock) {
        const Eigen::Index last = std::min(lines, first + BlockSupport::kBlock);
        Eigen::Index lo = along, hi = 0;
        for (Eigen::Index line = first; line < last; ++line) {
            for (Eigen::Index i = 0; i < lo; ++i) // the first marked entry left of the span
                if (used(line, i)) {
                    lo = i;
                    break;
                }
            for (Eigen::Index i = along; i-- > std::max(hi, lo);) // the last one right of it
                if (used(line, i)) {
                    hi = i + 1;
                    break;
                }
        }
        spans.push_back(hi > lo ? BlockSupport::Span{lo, hi - lo} : BlockSupport::Span{});
    }
    return spans;
}

} // namespace

BlockSupport BlockSupport::of(const BoolMatrix& entries) {
    const Eigen::Index rows = entries.rows(), cols = entries.cols();
    BlockSupport s;
    s.columnsOfRowBlocks_ =
        spansOf(rows, cols, [&](Eigen::Index r, Eigen::Index c) { return entries(r, c); });
    s.rowsOfColumnBlocks_ =
        spansOf(cols, rows, [&](Eigen::Index c, Eigen::Index r) { return entries(r, c); });
    const auto covers = [](const std::vector<Span>& spans, Eigen::Index along) {
        return std::all_of(spans.begin(), spans.end(), [&](const Span& span) {
            return span.first == 0 && span.count == along;
        });
    };
    s.dense_ = covers(s.columnsOfRowBlocks_, cols) && covers(s.rowsOfColumnBlocks_, rows);
    return s;
}

} // namespace attnlab
