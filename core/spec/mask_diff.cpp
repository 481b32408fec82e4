// SPDX-License-Identifier: GPL-3.0-or-later
// Cell-by-cell comparison of two masks.
#include "core/spec/mask_diff.h"

#include "core/base/error.h"

#include <string>

namespace attnlab {

MaskDiff diffMasks(const BoolMatrix& a, const BoolMatrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        throw InputError("masks of different shapes: " + std::to_string(a.rows()) + " x " +
                         std::to_string(a.cols()) + " and " + std::to_string(b.rows()) + " x " +
                         std::to_string(b.cols()));
    MaskDiff diff;
    diff.rows = static_cast<int>(a.rows());
    diff.cols = static_cast<int>(a.cols());
    diff.cells.reserve(std::size_t(diff.rows) * diff.cols);
    for (int s = 0; s < diff.rows; ++s)
        for (int t = 0; t < diff.cols; ++t) {
            const bool inA = a(s, t), inB = b(s, t);
            DiffCell cell = DiffCell::Neither;
            if (inA && inB) {
                cell = DiffCell::Both;
                ++diff.both;
            } else if (inA) {
                cell = DiffCell::OnlyA;
                ++diff.onlyA;
            } else if (inB) {
                cell = DiffCell::OnlyB;
                ++diff.onlyB;
            } else {
                ++diff.neither;
            }
            diff.cells.push_back(cell);
        }
    return diff;
}

} // namespace attnlab
