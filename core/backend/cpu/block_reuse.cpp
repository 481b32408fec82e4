// SPDX-License-Identifier: GPL-3.0-or-later
// The bookkeeping of BlockReuse (fused_attention.h): which query blocks a sweep computes again.
// Not a kernel: built once, for the whole program's instruction set.
#include "core/backend/cpu/fused_attention.h"

namespace attnlab::kernels {

template <class T>
BlockReuse<T>::BlockReuse(std::vector<Matrix<T>> outputs, const std::vector<bool>& changedRows)
    : outputs_(std::move(outputs)), changedBefore_(changedRows.size() + 1, 0) {
    for (std::size_t r = 0; r < changedRows.size(); ++r)
        changedBefore_[r + 1] = changedBefore_[r] + (changedRows[r] ? 1 : 0);
}

template <class T>
bool BlockReuse<T>::fits(const std::vector<HeadInputs<T>>& heads, int n) const {
    if (outputs_.size() != heads.size() || changedBefore_.size() != std::size_t(n) + 1)
        return false;
    for (std::size_t h = 0; h < heads.size(); ++h)
        if (outputs_[h].rows() != n || outputs_[h].cols() != heads[h].v->cols()) return false;
    return true;
}

template <class T>
bool BlockReuse<T>::recomputes(const BlockClassification& grid, int block) const {
    const long n = grid.n;
    const long s0 = long(block) * grid.rowTile;
    if (anyChanged(s0, std::min(n, s0 + grid.rowTile))) return true;
    for (int kb = 0; kb < grid.tileCols; ++kb) {
        const long t0 = long(kb) * grid.colTile;
        if (grid.at(block, kb) != TileKind::Empty && anyChanged(t0, std::min(n, t0 + grid.colTile)))
            return true;
    }
    return false;
}

template class BlockReuse<float>;
template class BlockReuse<double>;

} // namespace attnlab::kernels
