// The fused kernel: one task per (head, query block), each streaming over the key blocks its
// mask row of tiles allows, with running accumulators in the tile's own scalar type.
#include "kernels/fused_attention.h"

#include "error.h"
#include "kernels/parallel.h"

#include <algorithm>
#include <limits>

namespace attnlab::kernels {

namespace {

template <class T>
using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
using BoolColumn = Eigen::Array<bool, Eigen::Dynamic, 1>;

// What every task of one call shares.
template <class T>
struct Job {
    MixerSpec::Kind kind;
    T scale;
    const MaskSpec& mask;
    const BlockClassification& grid;
};

// Adds the distance bias to a tile of scores held keys x queries, keys from t0, queries from s0.
template <class T, class Tile>
void addBias(Tile& tile, const DistanceBias& bias, int s0, int t0) {
    const auto keys = tile.rows();
    const Column<T> keyOffsets = Column<T>::LinSpaced(keys, T(-t0), T(-t0 - keys + 1));
    const T slope = T(bias.slope);
    for (Eigen::Index i = 0; i < tile.cols(); ++i) {
        const auto distance = keyOffsets + T(s0 + i); // s - t
        if (bias.causal)
            tile.col(i).array() -= slope * distance;
        else
            tile.col(i).array() -= slope * distance.abs();
    }
}

// The rows [s0, s0 + rows) of one head's output; marks the rows that saw an allowed key.
// Scores are held transposed (keys x queries), so that each query's row of weights is one
// contiguous column: its max, exp(s - max) and sum are plain vector operations.
template <class T>
void attendQueryBlock(const Job<T>& job, const HeadInputs<T>& head, int block, Matrix<T>& out,
                      BoolColumn* seenRows) {
    constexpr T minusInf = -std::numeric_limits<T>::infinity();
    const BlockClassification& grid = job.grid;
    const int n = grid.n, s0 = block * grid.rowTile, rows = std::min(grid.rowTile, n - s0);
    const Matrix<T> qt = job.scale * head.q->middleRows(s0, rows).transpose(); // p x rows
    Matrix<T> acc = Matrix<T>::Zero(rows, head.v->cols());                     // Σ w·V[t]
    Column<T> total = Column<T>::Zero(rows);                                   // Σ w
    Column<T> runMax = Column<T>::Constant(rows, minusInf);
    BoolColumn seen = BoolColumn::Constant(rows, false);
    Matrix<T> scratch(grid.colTile, rows);
    std::vector<std::pair<long, long>> ranges; // each query's allowed keys, for interval masks
    const bool intervals = rowKeyRanges(job.mask, s0, rows, ranges);
    for (int kb = 0; kb < grid.tileCols; ++kb) {
        const TileKind kind = grid.at(block, kb);
        if (kind == TileKind::Empty) continue;
        const int t0 = kb * grid.colTile, cols = std::min(grid.colTile, n - t0);
        auto tile = scratch.topRows(cols); // keys x queries
        tile.noalias() = head.k->middleRows(t0, cols) * qt;
        if (head.bias) addBias<T>(tile, *head.bias, s0, t0);
        BoolMatrix allowed; // keys x queries, partial tiles of masks that are not intervals
        if (kind == TileKind::Full) {
            seen.setConstant(true);
        } else if (!intervals) {
            allowed = tileMask(job.mask, n, s0, rows, t0, cols).transpose();
            seen = seen || allowed.colwise().any().transpose();
        } else {
            for (int i = 0; i < rows; ++i) {
                const auto [first, last] = ranges[std::size_t(i)];
                seen(i) = seen(i) || (first <= last && first < t0 + cols && last >= t0);
            }
        }
        // Gives the blocked entries of a partial tile the value `blocked`.
        auto maskTile = [&](T blocked) {
            if (kind != TileKind::Partial) return;
            if (!intervals) {
                tile = allowed.select(tile.array(), blocked);
                return;
            }
            for (int i = 0; i < rows; ++i) {
                const auto [first, last] = ranges[std::size_t(i)];
                const long lo = std::clamp<long>(first - t0, 0, cols);
                const long hi = std::max(lo, std::clamp<long>(last - t0 + 1, 0, cols));
                tile.col(i).head(lo).setConstant(blocked);
                tile.col(i).tail(cols - hi).setConstant(blocked);
            }
        };
        if (job.kind == MixerSpec::Kind::Softmax) {
            maskTile(minusInf);
            const Column<T> newMax = runMax.max(tile.colwise().maxCoeff().transpose().array());
            for (Eigen::Index i = 0; i < rows; ++i) {
                const T shift = newMax(i) == minusInf ? T(0) : newMax(i);
                tile.col(i).array() = (tile.col(i).array() - shift).exp();
                const T rescale = std::exp(runMax(i) - shift);
                total(i) = rescale * total(i) + tile.col(i).sum();
                if (rescale != T(1)) acc.row(i) *= rescale;
            }
            runMax = newMax;
        } else {
            if (job.kind == MixerSpec::Kind::SoftmaxLike)
                tile.array() = T(1) + tile.array().max(T(0));
            maskTile(T(0));
            total += tile.colwise().sum().transpose().array();
        }
        acc.noalias() += tile.transpose() * head.v->middleRows(t0, cols);
    }
    if (job.kind != MixerSpec::Kind::Raw)
        acc = seen.select(total.inverse(), T(0)).matrix().asDiagonal() * acc;
    out.middleRows(s0, rows) = acc;
    if (seenRows) seenRows->segment(s0, rows) = seen;
}

} // namespace

template <class T>
FusedResult<T> fusedAttention(const MixerSpec& mixer, const MaskSpec& mask,
                              const std::vector<HeadInputs<T>>& heads, KernelTiles tiles) {
    if (mixer.kind == MixerSpec::Kind::Ssm)
        throw InputError("the fused kernel takes softmax, softmax_like or raw, not ssm");
    FusedResult<T> result;
    if (heads.empty()) return result;
    const int n = int(heads.front().q->rows());
    for (const HeadInputs<T>& h : heads)
        if (h.q->rows() != n || h.k->rows() != n || h.v->rows() != n || h.q->cols() != h.k->cols())
            throw InputError("fused attention: Q, K, V must have n rows and Q, K one width");
    const BlockClassification grid = classifyBlocks(mask, n, tiles.queryBlock, tiles.keyBlock);
    const Job<T> job{mixer.kind, mixerScale<T>(mixer, int(heads.front().q->cols())), mask, grid};
    for (const HeadInputs<T>& h : heads)
        result.outputs.emplace_back(n, h.v->cols());
    BoolColumn seen = BoolColumn::Constant(n, false);
    const long blocks = grid.tileRows;
    parallelFor(long(heads.size()) * blocks, [&](long task) {
        const auto head = std::size_t(task / blocks);
        const int block = int(blocks - 1 - task % blocks); // the longest causal rows first
        attendQueryBlock<T>(job, heads[head], block, result.outputs[head],
                            head == 0 ? &seen : nullptr);
    });
    for (int s = 0; s < n; ++s)
        if (!seen(s)) result.allMaskedRows.push_back(s);
    return result;
}

template FusedResult<float> fusedAttention<float>(const MixerSpec&, const MaskSpec&,
                                                  const std::vector<HeadInputs<float>>&,
                                                  KernelTiles);
template FusedResult<double> fusedAttention<double>(const MixerSpec&, const MaskSpec&,
                                                    const std::vector<HeadInputs<double>>&,
                                                    KernelTiles);

} // namespace attnlab::kernels
