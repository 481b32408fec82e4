// SPDX-License-Identifier: GPL-3.0-or-later
// Inside the kernels: the tiles of the scores of one query block's rows (all, or a part of them),
// held keys x queries (each query's row of weights is one contiguous column), with the scale, the
// distance bias and the mask applied, ready for the mixer: softmax gets blocked entries -inf,
// softmax_like 1 + relu(s) and raw s with blocked entries 0. Shared by the fused kernel and the
// pooled weight map. The scores are the block product (block_product.h) of the packed, scaled
// queries with the packed keys. Softmax scores may be held in base 2 (ScoreBase).
#pragma once

#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/packed_head.h"
#include "core/spec/block_classification.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

namespace attnlab::kernels {

template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
using BoolColumn = Eigen::Array<bool, Eigen::Dynamic, 1>;

/// The unit a tile holds softmax scores in: the mixer's (its weights exp(s - shift)), or base 2,
/// the mixer's times log2(e) (the weights 2^(s - shift), the same numbers: the fused kernel's,
/// whose 2^x takes no reduction by ln(2), softmax_column.h). Other mixers' scores are the mixer's.
enum class ScoreBase { Natural, Two };

/// Key blocks whose scores one product computes together: one block, unless the blocks are
/// narrower than a register tile's vectors (the tiling check's key blocks of 1, 2, 3 ... keys),
/// whose product would compute a tile of padding for each key; then enough of them to fill one.
/// The scores do not depend on it (each is summed over the depth in order); the softmax and the
/// product with V still take one key block at a time.
template <class T>
int keyBlocksPerScoreProduct(int keyBlock) {
    constexpr int wide = kTileVectors * kLanes<T>;
    return keyBlock >= wide ? 1 : (wide + keyBlock - 1) / keyBlock;
}

template <class T>
class ScoreTiles {
public:
    static constexpr T minusInf = -std::numeric_limits<T>::infinity();

    /// `keys`: the head's keys packed in the grid's key blocks, or in runs of a whole number of
    /// them (keyBlocksPerScoreProduct), whose scores are then computed together; `queryScale`:
    /// the mixer's scale, which the block's queries are packed with (here, on the calling
    /// thread: a query block's rows, read once), times log2(e) for softmax scores in base 2, as
    /// the distance bias is. The tiles hold the block's rows rowBegin .. rowEnd - 1, counted from
    /// its first (every row by default), of which at least the first is before n.
    ScoreTiles(MixerSpec::Kind kind, ScoreBase base, const MaskSpec& mask,
               const BlockClassification& grid, const HeadInputs<T>& head,
               const PackedKeys<T>& keys, T queryScale, int block, int rowBegin = 0,
               int rowEnd = std::numeric_limits<int>::max())
        : kind_(kind), mask_(mask), grid_(grid), head_(head), keys_(keys), block_(block),
          unit_(kind == MixerSpec::Kind::Softmax && base == ScoreBase::Two ? std::numbers::log2e
                                                                           : 1.0),
          s0_(block * grid.rowTile + rowBegin),
          rows_(std::min({grid.rowTile, rowEnd, grid.n - block * grid.rowTile}) - rowBegin),
          group_(keys.blockKeys() / grid.colTile),
          queries_(head.q->middleRows(s0_, rows_), T(double(queryScale) * unit_)),
          scratch_(group_ == 1 ? keys.stride() : paddedToLanes<T>(grid.colTile), rows_),
          groupScratch_(group_ == 1 ? 0 : keys.stride(), rows_) {
        assert(keys.blockKeys() == group_ * grid.colTile && rows_ > 0);
        intervals_ = rowKeyRanges(mask, s0_, rows_, ranges_);
        live_.resize(std::size_t(rows_));
    }

    int firstRow() const { return s0_; }
    int rows() const { return rows_; }
    /// Elements from one query's scores to the next's.
    int scratchStride() const { return int(scratch_.rows()); }

    /// Whether key block kb's tile may be filled with the finish ExpOfScores (softmax_column.h):
    /// with softmax, when every key of it is allowed, there is no distance bias (added after the
    /// product), its keys are whole packets (no padding to keep out of the sums) and its scores
    /// are computed alone (not in a run of key blocks).
    bool exponentiable(int kb) const {
        return group_ == 1 && kind_ == MixerSpec::Kind::Softmax && !head_.bias &&
               grid_.at(block_, kb) == TileKind::Full && tileKeys(kb) % kLanes<T> == 0;
    }

    /// The tile of key block kb (keys x queries: each query's scores contiguous, columns
    /// scratchStride() apart), or an empty block for an empty tile; marks in `seen` the queries
    /// that have an allowed key in it. Where the mask is a set of intervals, only the keys some
    /// query of a register tile's rows may see are computed (a tile that straddles a band's edge
    /// or a causal diagonal); every entry outside a query's live keys is blocked. The product's
    /// sums go through `finish` (block_product.h). A finish other than StoreSums requires
    /// exponentiable(kb): the tile is then left as the finish wrote it.
    template <class Finish = StoreSums<T>>
    Eigen::Block<Matrix<T>> fill(int kb, BoolColumn& seen, const Finish& finish = {false}) {
        const TileKind kind = grid_.at(block_, kb);
        const int t0 = kb * grid_.colTile, cols = tileKeys(kb);
        auto tile = scratch_.topRows(kind == TileKind::Empty ? 0 : cols);
        kb_ = kb;
        empty_ = kind == TileKind::Empty; // live_ left stale: most tiles of a long window are empty
        if (empty_) return tile;
        if (group_ == 1) {
            fillScores(kind, t0, cols, keys_.block(kb), scratch_, seen, finish);
            return tile;
        }
        // The tile is a part of its run's scores, computed once for the run.
        const int run = kb / group_, runStart = run * keys_.blockKeys();
        if (run != filledRun_) {
            const int runKeys = std::min(keys_.blockKeys(), grid_.n - runStart);
            fillScores(runKind(run), runStart, runKeys, keys_.block(run), groupScratch_, seen,
                       finish);
            filledRun_ = run;
        }
        tile = groupScratch_.middleRows(t0 - runStart, cols);
        setLiveKeys(kind, t0, cols);
        return tile;
    }

    /// Query i's scores in the last tile filled, computed again: for a tile filled with a finish
    /// that left them as something else (ExpOfScores' raised queries). Only where
    /// exponentiable(kb): scores with nothing added.
    void rescore(int i) {
        blockProduct(false, 1, keys_.depth(), queries_.row(i), queries_.stride(), keys_.block(kb_),
                     0, 0, tileKeys(kb_) / kLanes<T>, column(i), keys_.stride());
    }

    /// The keys of query i in the last tile filled outside which every entry is blocked:
    /// [first, last). All of the tile's keys unless the tile is partial and the mask a set of
    /// intervals; none for an empty tile.
    std::pair<int, int> liveKeys(int i) const {
        return empty_ ? std::pair{0, 0} : live_[std::size_t(i)];
    }
    /// The union of liveKeys over queries r .. r + count - 1 (empty: first >= last).
    std::pair<int, int> liveKeys(int r, int count) const {
        if (empty_) return {0, 0};
        std::pair<int, int> all = live_[std::size_t(r)];
        for (int i = r + 1; i < r + count; ++i) {
            const auto [lo, hi] = live_[std::size_t(i)];
            if (lo >= hi) continue;
            all = all.first >= all.second
                      ? std::pair{lo, hi}
                      : std::pair{std::min(all.first, lo), std::max(all.second, hi)};
        }
        return all;
    }
    /// Queries of the last tile taken over one range of keys (liveKeys(r, count)): a register
    /// tile's rows where the live keys differ from query to query, else every row, so that a
    /// product over them is one call (each strip of B then read once for all of them).
    int rowGroup() const { return restricted_ ? kTileRows : rows_; }
    /// Query i's scores in the scratch tile.
    T* column(int i) { return scratch_.data() + Eigen::Index(i) * scratch_.rows(); }

private:
    // The scores of keys t0 .. t0 + cols - 1, whose tile is of `kind` (not empty), as fill
    // describes them, in the first cols rows of `into`, from `keys` (their packed block).
    template <class Finish>
    void fillScores(TileKind kind, int t0, int cols, const Panel<T>& keys, Matrix<T>& into,
                    BoolColumn& seen, const Finish& finish) {
        auto tile = into.topRows(cols);
        setLiveKeys(kind, t0, cols);
        // The keys no query of a register group may see are left unwritten by its product and
        // blocked below, query by query; the bias and softmax_like's step read the whole tile
        // before that, so for them those keys are defined (as 0) first.
        const bool readWhole = head_.bias || kind_ == MixerSpec::Kind::SoftmaxLike;
        const long stride = into.rows();
        for (int r = 0; r < rows_; r += rowGroup()) {
            const int count = std::min(rowGroup(), rows_ - r);
            const auto [lo, hi] = liveKeys(r, count);
            const int from = lo / kLanes<T> * kLanes<T>, to = paddedToLanes<T>(hi);
            const bool computed = lo < hi && from < to;
            T* const scores0 = into.data() + r * stride;
            if (computed)
                blockProduct(count, keys_.depth(), queries_.row(r), queries_.stride(), keys, 0,
                             from / kLanes<T>, to / kLanes<T>, scores0 + from, stride,
                             finish.from(r));
            if (!restricted_ || !readWhole) continue;
            for (int i = r; i < r + count; ++i) {
                T* const scores = into.data() + i * stride;
                std::fill(scores, scores + (computed ? from : cols), T(0));
                if (computed && to < cols) std::fill(scores + to, scores + cols, T(0));
            }
        }
        if (head_.bias) addBias(tile, *head_.bias, t0);
        if (kind_ == MixerSpec::Kind::SoftmaxLike) tile.array() = T(1) + tile.array().max(T(0));
        if (kind == TileKind::Full) {
            seen.setConstant(true);
            return;
        }
        const T blocked = kind_ == MixerSpec::Kind::Softmax ? minusInf : T(0);
        if (!intervals_) {
            const BoolMatrix allowed = tileMask(mask_, grid_.n, s0_, rows_, t0, cols).transpose();
            seen = seen || allowed.colwise().any().transpose();
            tile = allowed.select(tile.array(), blocked);
            return;
        }
        for (int i = 0; i < rows_; ++i) {
            const auto [lo, hi] = live_[std::size_t(i)];
            tile.col(i).head(lo).setConstant(blocked);
            tile.col(i).tail(cols - hi).setConstant(blocked);
            seen(i) = seen(i) || lo < hi;
        }
    }

    // Sets liveKeys and rowGroup for the tile of keys t0 .. t0 + cols - 1, of `kind`.
    void setLiveKeys(TileKind kind, int t0, int cols) {
        restricted_ = kind == TileKind::Partial && intervals_;
        for (int i = 0; i < rows_; ++i) {
            live_[std::size_t(i)] = {0, cols};
            if (!restricted_) continue;
            const auto [first, last] = ranges_[std::size_t(i)];
            const int lo = int(std::clamp<long>(first - t0, 0, cols));
            live_[std::size_t(i)] = {lo,
                                     std::max(lo, int(std::clamp<long>(last - t0 + 1, 0, cols)))};
        }
    }

    // The kind of the tile of a run of key blocks: full or empty where all its blocks are.
    TileKind runKind(int run) const {
        const int first = run * group_, last = std::min(grid_.tileCols, first + group_);
        bool full = true, empty = true;
        for (int kb = first; kb < last; ++kb) {
            full = full && grid_.at(block_, kb) == TileKind::Full;
            empty = empty && grid_.at(block_, kb) == TileKind::Empty;
        }
        return full ? TileKind::Full : empty ? TileKind::Empty : TileKind::Partial;
    }

    // Keys in key block kb.
    int tileKeys(int kb) const { return std::min(grid_.colTile, grid_.n - kb * grid_.colTile); }

    // Adds the distance bias: -slope·|s - t| (or -slope·(s - t)) for keys from t0, in the
    // scores' unit.
    template <class Tile>
    void addBias(Tile& tile, const DistanceBias& bias, int t0) const {
        const auto keys = tile.rows();
        const Column<T> keyOffsets = Column<T>::LinSpaced(keys, T(-t0), T(-t0 - keys + 1));
        const T slope = T(bias.slope * unit_);
        for (Eigen::Index i = 0; i < tile.cols(); ++i) {
            const auto distance = keyOffsets + T(s0_ + i); // s - t
            if (bias.causal)
                tile.col(i).array() -= slope * distance;
            else
                tile.col(i).array() -= slope * distance.abs();
        }
    }

    MixerSpec::Kind kind_;
    const MaskSpec& mask_;
    const BlockClassification& grid_;
    const HeadInputs<T>& head_;
    const PackedKeys<T>& keys_;
    int block_;
    double unit_; // what the scores are held times: log2(e) for base 2, else 1
    int s0_, rows_;
    int group_;              // key blocks per score product (keyBlocksPerScoreProduct)
    int filledRun_ = -1;     // the run of group_ key blocks whose scores groupScratch_ holds
    int kb_ = 0;             // the key block of the last tile filled
    PackedRows<T> queries_;  // the block's queries, scaled
    Matrix<T> scratch_;      // padded keys x queries; fill writes every key of a non-empty tile
    Matrix<T> groupScratch_; // a run's scores, where group_ > 1
    std::vector<std::pair<long, long>> ranges_; // each query's allowed keys, for interval masks
    bool intervals_ = false;
    std::vector<std::pair<int, int>> live_; // liveKeys of each query in the last tile
    bool empty_ = false;                    // whether the last tile was empty (live_ is stale)
    bool restricted_ = false; // whether the last tile's queries have live keys of their own
};

} // namespace attnlab::kernels
