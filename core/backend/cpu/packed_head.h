// Inside the kernels: one head's keys and values laid out once for the block product
// (block_product.h), before its query blocks are spread over the threads. The keys of each key
// block as a contiguous depth x keys matrix, the values as one row of each key, both padded with
// zeros to whole vectors.
#pragma once

#include "core/backend/cpu/block_product.h"
#include "core/backend/cpu/fused_attention.h"

#include <algorithm>

namespace attnlab::kernels {

template <class T>
class PackedKeys {
public:
    /// K's key blocks of `keyBlock` keys (the last one possibly shorter).
    PackedKeys(const Matrix<T>& k, int keyBlock)
        : stride_(paddedToLanes<T>(keyBlock)), depth_(int(k.cols())) {
        const int n = int(k.rows()), blocks = (n + keyBlock - 1) / keyBlock;
        keys_ = Matrix<T>::Zero(stride_, Eigen::Index(depth_) * blocks);
        for (int kb = 0; kb < blocks; ++kb) {
            const int t0 = kb * keyBlock, cols = std::min(keyBlock, n - t0);
            keys_.block(0, Eigen::Index(kb) * depth_, cols, depth_) = k.middleRows(t0, cols);
        }
    }
    /// Key block kb: element (d, key) at block(kb)[d·stride() + key].
    const T* block(int kb) const { return keys_.data() + Eigen::Index(kb) * depth_ * stride_; }
    int stride() const { return stride_; }
    int depth() const { return depth_; }

private:
    int stride_, depth_;
    Matrix<T> keys_; // stride x (depth · blocks): block kb's key t at row t, feature d at column
};

template <class T>
class PackedValues {
public:
    explicit PackedValues(const Matrix<T>& v)
        : width_(int(v.cols())), rowsT_(Matrix<T>::Zero(paddedToLanes<T>(width_), v.rows())) {
        rowsT_.topRows(width_) = v.transpose();
    }
    /// Key t's values at row(t)[0..width()), zeros up to stride().
    const T* row(int t) const { return rowsT_.data() + Eigen::Index(t) * stride(); }
    int stride() const { return int(rowsT_.rows()); }
    int width() const { return width_; }

private:
    int width_;
    Matrix<T> rowsT_; // stride x n: key t's values in column t
};

} // namespace attnlab::kernels
