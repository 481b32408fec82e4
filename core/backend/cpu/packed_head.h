// Inside the kernels: one head's queries, keys and values laid out once for the block product
// (block_product.h), before its query blocks are spread over the threads. The keys of each key
// block as a contiguous depth x keys matrix, the queries (scaled) and values as one row of each
// token, all padded with zeros to whole vectors; packed on the kernels' threads.
#pragma once

#include "core/backend/cpu/block_product.h"
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/transposed_copy.h"
#include "core/base/parallel.h"

#include <algorithm>

namespace attnlab::kernels {

/// What packing one element costs, in the multiply-adds parallelFor's work is counted in (a
/// strided copy; a guess that makes n = 16384 x 64 worth two threads and n = 256 not).
inline constexpr double kPackWork = 32;

template <class T>
class PackedKeys {
public:
    /// K's key blocks of `keyBlock` keys (the last one possibly shorter; a block longer than
    /// the sequence holds the sequence).
    PackedKeys(const Matrix<T>& k, int keyBlock)
        : stride_(paddedToLanes<T>(std::min(keyBlock, int(k.rows())))), depth_(int(k.cols())) {
        const int n = int(k.rows()), blocks = (n + keyBlock - 1) / keyBlock;
        keys_.resize(stride_, Eigen::Index(depth_) * blocks);
        parallelFor(
            blocks,
            [&](long kb) {
                const int t0 = int(kb) * keyBlock, cols = std::min(keyBlock, n - t0);
                auto block = keys_.middleCols(kb * depth_, depth_);
                block.topRows(cols) = k.middleRows(t0, cols);
                block.bottomRows(stride_ - cols).setZero();
            },
            double(n) * depth_ * kPackWork);
    }
    /// Key block kb: element (d, key) at block(kb)[d·stride() + key].
    const T* block(int kb) const { return keys_.data() + Eigen::Index(kb) * depth_ * stride_; }
    int stride() const { return stride_; }
    int depth() const { return depth_; }

private:
    int stride_, depth_;
    Matrix<T> keys_; // stride x (depth · blocks): block kb's key t, feature d at (t, kb·depth + d)
};

/// A matrix's rows (queries or values), each contiguous and padded with zeros to whole vectors,
/// times a scale (the queries carry the mixer's): the A of the score product, the B of the
/// product with the weights.
template <class T>
class PackedRows {
public:
    explicit PackedRows(const Matrix<T>& m, T scale = T(1))
        : width_(int(m.cols())), rowsT_(paddedToLanes<T>(width_), m.rows()) {
        constexpr long kRows = 256; // rows per task
        parallelFor((m.rows() + kRows - 1) / kRows,
                    [&](long task) {
                        const long t0 = task * kRows, rows = std::min(kRows, long(m.rows()) - t0);
                        copyTransposed(int(rows), width_, m.data() + t0, m.outerStride(),
                                       rowsT_.data() + t0 * stride(), stride(), scale);
                        rowsT_.block(width_, t0, rowsT_.rows() - width_, rows).setZero();
                    },
                    double(m.rows()) * width_ * kPackWork);
    }
    /// Row t at row(t)[0..width()), zeros up to stride().
    const T* row(int t) const { return rowsT_.data() + Eigen::Index(t) * stride(); }
    int stride() const { return int(rowsT_.rows()); }
    int width() const { return width_; }

private:
    int width_;
    Matrix<T> rowsT_; // stride x rows: row t in column t
};

} // namespace attnlab::kernels
