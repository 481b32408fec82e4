// SPDX-License-Identifier: GPL-3.0-or-later
// Inside the kernels: one head's keys and values laid out once for the block product
// (block_product.h), before its query blocks are spread over the threads (every head's in one
// parallel loop, or each key block when a task first reads it: Packing), and a query block's
// queries laid out by its own task. The keys of each key block as a depth x keys panel, the
// values as one tokens x features panel (the B of the two products, in strips:
// block_product.h's Panel), the queries (scaled) as one row of each token (the A of the score
// product); all padded with zeros to whole vectors. Keys and values are packed on the kernels'
// threads.
#pragma once

#include "core/backend/cpu/block_product.h"
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/transposed_copy.h"
#include "core/base/once_per_item.h"
#include "core/base/parallel.h"
#include "core/spec/block_classification.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace attnlab::kernels {

/// What packing one element costs, in the multiply-adds parallelFor's work is counted in (a
/// strided copy; a guess that makes n = 16384 x 64 worth two threads and n = 256 not).
inline constexpr double kPackWork = 32;

/// Rows of a matrix a task of the packers copies.
inline constexpr long kPackRows = 256;

/// When a head's key and value blocks are packed.
enum class Packing {
    Now,      ///< all of them, spread over the threads, before the constructor returns
    Together, ///< none until packTogether packs them, with other heads' in one parallel loop
    OnUse,    ///< each when a task first reads it, on that task's thread (OncePerItem): for masks
              ///< whose query blocks read few key blocks, so that a block is still in the cache
              ///< of the thread that packed it when the next query blocks read it
};

template <class T>
class PackedKeys;
template <class T>
class PackedValues;

/// Packs keys and values made with Packing::Together (or Now, from their constructors): every
/// part of every one of them as one item of one parallel loop. One head's keys or values at
/// n = 4096, d = 64 (1 MiB) are too little work to wake the threads for; a layer's together are
/// not.
template <class T>
void packTogether(const std::vector<const PackedKeys<T>*>& keys,
                  const std::vector<const PackedValues<T>*>& values) {
    struct Part {
        const PackedKeys<T>* keys;
        const PackedValues<T>* values;
        long part;
    };
    std::vector<Part> parts;
    double work = 0;
    for (const PackedKeys<T>* k : keys) {
        for (long p = 0; p < k->parts(); ++p)
            parts.push_back({k, nullptr, p});
        work += k->elements() * kPackWork;
    }
    for (const PackedValues<T>* v : values) {
        for (long p = 0; p < v->parts(); ++p)
            parts.push_back({nullptr, v, p});
        work += v->elements() * kPackWork;
    }
    parallelFor(
        long(parts.size()),
        [&](long i) {
            const Part& at = parts[std::size_t(i)];
            if (at.keys)
                at.keys->packPart(at.part);
            else
                at.values->packPart(at.part);
        },
        work);
}

/// OnUse where each query block reads at most a quarter of the key blocks, and there are eight
/// or more (`window:128` at n = 16384 reads 3 of 128); else Together.
inline Packing packingFor(const BlockClassification& grid) {
    return grid.tileCols >= 8 && 4 * grid.widestTileRow() <= grid.tileCols ? Packing::OnUse
                                                                           : Packing::Together;
}

template <class T>
class PackedKeys {
public:
    /// K's key blocks of `keyBlock` keys (the last one possibly shorter; a block longer than
    /// the sequence holds the sequence). K must outlive it.
    PackedKeys(const Matrix<T>& k, int keyBlock, Packing when = Packing::Now)
        : k_(&k), keyBlock_(keyBlock), stride_(paddedToLanes<T>(std::min(keyBlock, int(k.rows())))),
          depth_(int(k.cols())), blocks_(int((k.rows() + keyBlock - 1) / keyBlock)),
          keys_(Eigen::Index(stride_) * depth_ * blocks_) {
        if (when == Packing::OnUse)
            onUse_.emplace(blocks_);
        else if (when == Packing::Now)
            packTogether<T>({this}, {});
    }
    /// Key block kb: depth() rows, one column per key (stride() of them, padded).
    Panel<T> block(int kb) const {
        if (onUse_) onUse_->ensure(kb, [&] { pack(kb); });
        return laidOut(kb);
    }
    int stride() const { return stride_; }
    int depth() const { return depth_; }
    /// Keys per block (the last block may hold fewer).
    int blockKeys() const { return keyBlock_; }

    /// For packTogether: the parts it packs (one per key block), part p, and K's elements.
    long parts() const { return blocks_; }
    void packPart(long p) const { pack(int(p)); }
    double elements() const { return double(k_->rows()) * depth_; }

private:
    Eigen::Index blockStart(int kb) const { return Eigen::Index(kb) * depth_ * stride_; }
    // Where key block kb is laid out, packed or not.
    Panel<T> laidOut(int kb) const {
        return {keys_.data() + blockStart(kb), long(depth_) * Panel<T>::kStripWidth, stride_};
    }

    // Packs key block kb (const: a block packed on use is packed from block()).
    void pack(int kb) const {
        const Matrix<T>& k = *k_;
        const int n = int(k.rows()), t0 = kb * keyBlock_, cols = std::min(keyBlock_, n - t0);
        T* const start = keys_.data() + blockStart(kb);
        const Panel<T> to = laidOut(kb);
        // Feature by feature: its keys are contiguous in K's column d, and each strip takes its
        // part as row d. (Strip by strip, reading 16 keys from each of the columns in turn, took
        // about 1.6 times as long in a profile.) A block's whole strips are copied as fixed-size
        // vectors: two maps of run-time size per strip and feature cost more than the copy (a
        // tenth of a long window).
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
                Vector<T>::Map(row, keys) = Vector<T>::Map(column + std::min(c, cols), keys);
                Vector<T>::Map(row + keys, w - keys).setZero();
            }
        }
    }

    const Matrix<T>* k_;
    int keyBlock_, stride_, depth_, blocks_;
    mutable Vector<T> keys_; // block after block; written by pack()
    std::optional<OncePerItem> onUse_;
};

/// The values: a panel of one row per token and one column per feature (padded with zeros to
/// whole vectors), the B of the product with the weights.
template <class T>
class PackedValues {
public:
    /// V packed whole, or (OnUse) in blocks of `keyBlock` rows, each when first read. V must
    /// outlive it.
    explicit PackedValues(const Matrix<T>& v, int keyBlock = kPackRows, Packing when = Packing::Now)
        : v_(&v), keyBlock_(keyBlock), rows_(v.rows()), width_(int(v.cols())),
          stride_(paddedToLanes<T>(width_)), values_(rows_ * stride_) {
        if (when == Packing::OnUse)
            onUse_.emplace(int((rows_ + keyBlock - 1) / keyBlock));
        else if (when == Packing::Now)
            packTogether<T>({}, {this});
    }
    /// The whole panel, its rows of key block kb packed.
    Panel<T> panel(int kb) const {
        if (onUse_)
            onUse_->ensure(kb, [&] {
                const long t0 = long(kb) * keyBlock_;
                pack(t0, std::min(long(keyBlock_), rows_ - t0));
            });
        return panel();
    }
    /// The whole panel (every row packed only with Packing::Now).
    Panel<T> panel() const { return {values_.data(), rows_ * Panel<T>::kStripWidth, stride_}; }
    /// Features, and features padded to whole vectors.
    int width() const { return width_; }
    int stride() const { return stride_; }

    /// For packTogether: the parts it packs (kPackRows rows each), part p, and V's elements.
    long parts() const { return (rows_ + kPackRows - 1) / kPackRows; }
    void packPart(long p) const { pack(p * kPackRows, std::min(kPackRows, rows_ - p * kPackRows)); }
    double elements() const { return double(rows_) * width_; }

private:
    // Packs rows t0 .. t0 + rows - 1 (const: packed on use from panel()).
    void pack(long t0, long rows) const {
        const Matrix<T>& v = *v_;
        const Panel<T> to = panel();
        for (int s = 0; s * to.kStripWidth < stride_; ++s) {
            const int c = s * to.kStripWidth, w = to.stripWidth(s),
                      real = std::clamp(width_ - c, 0, w);
            T* const strip = values_.data() + to.offset(t0, c);
            copyTransposed(int(rows), real, v.data() + t0 + c * v.outerStride(), v.outerStride(),
                           strip, w);
            Eigen::Map<RowMajorMatrix<T>>(strip, rows, w).rightCols(w - real).setZero();
        }
    }

    const Matrix<T>* v_;
    int keyBlock_;
    long rows_;
    int width_, stride_;
    mutable Vector<T> values_; // written by pack()
    std::optional<OncePerItem> onUse_;
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
