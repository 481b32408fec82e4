// SPDX-License-Identifier: GPL-3.0-or-later
// Products with an n x m matrix that is zero outside a known set of entries (the weights of a
// masked head, and the gradients and tangents of its weights and scores in the derivative
// passes), computed over the blocks that can be non-zero only: about half the work under a
// causal mask, work linear in n under a window. The entries skipped are exact zeros, so the sums
// keep their terms.
#pragma once

#include "core/base/parallel.h"
#include "core/model/matrix_times.h"

#include <vector>

namespace attnlab {

/// Where a matrix may be non-zero, by blocks: for each block of kBlock rows the span of columns
/// its entries may use, and for each block of kBlock columns the span of rows.
class BlockSupport {
public:
    static constexpr Eigen::Index kBlock = 32;
    struct Span {
        Eigen::Index first = 0, count = 0;
    };

    /// The support of the entries marked true (a mask, or the non-zeros of a matrix).
    static BlockSupport of(const BoolMatrix& entries);

    /// Whether every block spans everything: the products are the plain ones.
    bool dense() const { return dense_; }
    const std::vector<Span>& columnsOfRowBlocks() const { return columnsOfRowBlocks_; }
    const std::vector<Span>& rowsOfColumnBlocks() const { return rowsOfColumnBlocks_; }

private:
    bool dense_ = true;
    std::vector<Span> columnsOfRowBlocks_, rowsOfColumnBlocks_;
};

namespace block_support_detail {
// Calls body(first, count, span) for each block of kBlock along a dimension and its span,
// spread over the threads; `depth` is the other factor's width, for the work estimate.
template <class Body>
void forEachBlock(Eigen::Index total, const std::vector<BlockSupport::Span>& spans,
                  Eigen::Index depth, Body&& body) {
    double work = 0;
    for (const BlockSupport::Span& s : spans)
        work += double(BlockSupport::kBlock) * double(s.count) * double(depth);
    kernels::parallelFor(
        long(spans.size()),
        [&](long i) {
            const Eigen::Index first = Eigen::Index(i) * BlockSupport::kBlock;
            const BlockSupport::Span& span = spans[std::size_t(i)];
            body(first, std::min(BlockSupport::kBlock, total - first), span);
        },
        work);
}

// Σ over the blocks of `spans`: out's rows [first, first + count) = part(first, count, span)·b's
// rows of the span, where part is the block of the sparse factor (0 where the span is empty).
template <class T, class B, class Part>
Matrix<T> blockRowsTimes(Eigen::Index rows, const std::vector<BlockSupport::Span>& spans,
                         const B& b, Part&& part) {
    Matrix<T> out(rows, b.cols());
    forEachBlock(rows, spans, b.cols(),
                 [&](Eigen::Index first, Eigen::Index count, const BlockSupport::Span& span) {
                     if (span.count == 0)
                         out.middleRows(first, count).setZero();
                     else
                         out.middleRows(first, count) = times<T>(
                             part(first, count, span), b.middleRows(span.first, span.count));
                 });
    return out;
}
} // namespace block_support_detail

/// m·b for m zero outside `support`.
template <class T, class B>
Matrix<T> timesSupported(const BlockSupport& support, const Matrix<T>& m, const B& b) {
    if (support.dense()) return times<T>(m, b);
    return block_support_detail::blockRowsTimes<T>(
        m.rows(), support.columnsOfRowBlocks(), b,
        [&](Eigen::Index first, Eigen::Index count, const BlockSupport::Span& span) {
            return m.block(first, span.first, count, span.count);
        });
}

/// mᵀ·b for m zero outside `support`.
template <class T, class B>
Matrix<T> transposeTimesSupported(const BlockSupport& support, const Matrix<T>& m, const B& b) {
    if (support.dense()) return times<T>(m.transpose(), b);
    return block_support_detail::blockRowsTimes<T>(
        m.cols(), support.rowsOfColumnBlocks(), b,
        [&](Eigen::Index first, Eigen::Index count, const BlockSupport::Span& span) {
            return m.block(span.first, first, span.count, count).transpose();
        });
}

/// a·bᵀ where `support` may be non-zero, and 0 on the blocks outside it (what a product lands on
/// the entries a mask then blocks is not needed). Entries inside a block but outside the support
/// hold the product too.
template <class T, class A, class B>
Matrix<T> timesTransposedOnSupport(const BlockSupport& support, const A& a, const B& b) {
    if (support.dense()) return times<T>(a, b.transpose());
    Matrix<T> out(a.rows(), b.rows());
    block_support_detail::forEachBlock(
        a.rows(), support.columnsOfRowBlocks(), a.cols(),
        [&](Eigen::Index first, Eigen::Index count, const BlockSupport::Span& span) {
            const Eigen::Index end = span.first + span.count;
            out.block(first, 0, count, span.first).setZero();
            out.block(first, end, count, out.cols() - end).setZero();
            if (span.count == 0) return;
            out.block(first, span.first, count, span.count) = times<T>(
                a.middleRows(first, count), b.middleRows(span.first, span.count).transpose());
        });
    return out;
}

} // namespace attnlab
