// Inside the kernels: one head's keys and values laid out once for the block product
// (block_product.h), before its query blocks are spread over the threads, and a query block's
// queries laid out by its own task. The keys of each key block as a depth x keys panel, the values
// as one tokens x features panel (the B of the two products, in strips: block_product.h's Panel),
// the queries (scaled) as one row of each token (the A of the score product); all padded with
// zeros to whole vectors. Keys and values are packed on the kernels' threads.
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

/// Rows of a matrix a task of the packers copies.
inline constexpr long kPackRows = 256;

template <class T>
class PackedKeys {
public:
    /// K's key blocks of `keyBlock` keys (the last one possibly shorter; a block longer than
    /// the sequence holds the sequence).
    PackedKeys(const Matrix<T>& k, int keyBlock)
        : stride_(paddedToLanes<T>(std::min(keyBlock, int(k.rows())))), depth_(int(k.cols())),
          keys_(Eigen::Index(stride_) * depth_ * ((k.rows() + keyBlock - 1) / keyBlock)) {
        const int n = int(k.rows()), blocks = (n + keyBlock - 1) / keyBlock;
        parallelFor(
            blocks,
            [&](long kb) {
                const int t0 = int(kb) * keyBlock, cols = std::min(keyBlock, n - t0);
                const Panel<T> to = block(int(kb));
                T* const start = keys_.data() + blockStart(int(kb));
                // Feature by feature: its keys are contiguous in K's column d, and each strip
                // takes its part as row d. (Strip by strip, reading 16 keys from each of the
                // columns in turn, took about 1.6 times as long in a profile.)
                // A block's whole strips are copied as fixed-size vectors: two maps of run-time
                // size per strip and feature cost more than the copy (a tenth of a long window).
                constexpr int W = Panel<T>::kStripWidth;
                const int whole = cols / W * W;
                for (int d = 0; d < depth_; ++d) {
                    const T* const column = k.data() + Eigen::Index(d) * k.outerStride() + t0;
                    int c = 0;
                    for (; c < whole; c += W)
                        Eigen::Matrix<T, W, 1>::Map(start + to.offset(d, c)) =
                            Eigen::Matrix<T, W, 1>::Map(column + c);
                    for (; c < stride_; c += W) {
                        const int w = to.stripWidth(c / W), keys = std::clamp(cols - c, 0, w);
                        T* const row = start + to.offset(d, c);
                        Vector<T>::Map(row, keys) =
                            Vector<T>::Map(column + std::min(c, cols), keys);
                        Vector<T>::Map(row + keys, w - keys).setZero();
                    }
                }
            },
            double(n) * depth_ * kPackWork);
    }
    /// Key block kb: depth() rows, one column per key (stride() of them, padded).
    Panel<T> block(int kb) const {
        return {keys_.data() + blockStart(kb), long(depth_) * Panel<T>::kStripWidth, stride_};
    }
    int stride() const { return stride_; }
    int depth() const { return depth_; }

private:
    Eigen::Index blockStart(int kb) const { return Eigen::Index(kb) * depth_ * stride_; }

    int stride_, depth_;
    Vector<T> keys_; // block after block
};

/// The values: a panel of one row per token and one column per feature (padded with zeros to
/// whole vectors), the B of the product with the weights.
template <class T>
class PackedValues {
public:
    explicit PackedValues(const Matrix<T>& v)
        : rows_(v.rows()), width_(int(v.cols())), stride_(paddedToLanes<T>(width_)),
          values_(rows_ * stride_) {
        const Panel<T> to = panel();
        parallelFor(
            (rows_ + kPackRows - 1) / kPackRows,
            [&](long task) {
                const long t0 = task * kPackRows, rows = std::min(kPackRows, rows_ - t0);
                for (int s = 0; s * to.kStripWidth < stride_; ++s) {
                    const int c = s * to.kStripWidth, w = to.stripWidth(s),
                              real = std::clamp(width_ - c, 0, w);
                    T* const strip = values_.data() + to.offset(t0, c);
                    copyTransposed(int(rows), real, v.data() + t0 + c * v.outerStride(),
                                   v.outerStride(), strip, w);
                    Eigen::Map<RowMajorMatrix<T>>(strip, rows, w).rightCols(w - real).setZero();
                }
            },
            double(rows_) * width_ * kPackWork);
    }
    Panel<T> panel() const { return {values_.data(), rows_ * Panel<T>::kStripWidth, stride_}; }
    /// Features, and features padded to whole vectors.
    int width() const { return width_; }
    int stride() const { return stride_; }

private:
    long rows_;
    int width_, stride_;
    Vector<T> values_;
};

/// A matrix's rows (a query block's queries), each contiguous and padded with zeros to whole
/// vectors, times a scale (the queries carry the mixer's): the A of the score product.
template <class T>
class PackedRows {
public:
    explicit PackedRows(const Eigen::Ref<const Matrix<T>, 0, Eigen::OuterStride<>>& m,
                        T scale = T(1))
        : width_(int(m.cols())), rowsT_(paddedToLanes<T>(width_), m.rows()) {
        // On the calling thread: a query block's task packs its own.
        copyTransposed(int(m.rows()), width_, m.data(), m.outerStride(), rowsT_.data(), stride(),
                       scale);
        rowsT_.bottomRows(rowsT_.rows() - width_).setZero();
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
