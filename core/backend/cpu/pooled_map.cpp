// SPDX-License-Identifier: GPL-3.0-or-later
// Blockwise max-pooling, one output cell per block, blocks spread over the CPU threads. A source
// of every variant of the CPU kernels (kernel_variant.h).
#include "core/backend/cpu/kernel_variant.h"
#include "core/backend/cpu/score_tiles.h"
#include "core/base/error.h"
#include "core/base/parallel.h"

namespace attnlab::kernels::ATTNLAB_CPU_VARIANT {

namespace {

// One source column pooled down its rows into `hi` (largest per block of bh rows) and, when
// given, `lo` (smallest). A plain pass in storage order: measured 3x faster here than Eigen's
// colwise reductions over the bh x (rows / bh) view of the column.
template <class T>
void poolColumn(const T* column, Eigen::Index rows, Eigen::Index bh, Column<T>& hi, Column<T>* lo) {
    for (Eigen::Index start = 0, cell = 0; start < rows; start += bh, ++cell)
        for (Eigen::Index r = start; r < std::min(start + bh, rows); ++r) {
            hi(cell) = std::max(hi(cell), column[r]);
            if (lo) (*lo)(cell) = std::min((*lo)(cell), column[r]);
        }
}

} // namespace

template <class T>
Matrix<T> maxPool(const Matrix<T>& map, int maxRows, int maxCols, PoolBy by) {
    if (maxRows < 1 || maxCols < 1) throw InputError("pooled map: size must be at least 1 x 1");
    const Eigen::Index rows = map.rows(), cols = map.cols();
    const Eigen::Index bh = (rows + maxRows - 1) / maxRows, bw = (cols + maxCols - 1) / maxCols;
    if (bh <= 1 && bw <= 1) return map;
    const Eigen::Index outRows = (rows + bh - 1) / bh, outCols = (cols + bw - 1) / bw;
    const bool magnitude = by == PoolBy::Magnitude;
    Matrix<T> pooled(outRows, outCols);
    parallelFor(
        long(outCols),
        [&](long j) {
            // Down the rows of each column of the strip, then across the strip.
            constexpr T infinity = std::numeric_limits<T>::infinity();
            Column<T> hi = Column<T>::Constant(outRows, -infinity),
                      lo = Column<T>::Constant(magnitude ? outRows : 0, infinity);
            const Eigen::Index c0 = j * bw, w = std::min(bw, cols - c0);
            for (Eigen::Index c = c0; c < c0 + w; ++c)
                poolColumn(map.col(c).data(), rows, bh, hi, magnitude ? &lo : nullptr);
            if (magnitude)
                pooled.col(j) = (hi.abs() >= lo.abs()).select(hi, lo).matrix();
            else
                pooled.col(j) = hi.matrix();
        },
        double(rows) * double(cols));
    return pooled;
}

namespace {

// One query block's weights, pooled into the rows of `pooled` its queries fall in (the block
// covers whole pooled rows, so blocks never share a cell).
template <class T>
void poolQueryBlock(MixerSpec::Kind kind, const MaskSpec& mask, const BlockClassification& grid,
                    const HeadInputs<T>& head, const PackedKeys<T>& keys, T queryScale, int block,
                    Eigen::Index bh, Eigen::Index bw, Matrix<T>& pooled) {
    constexpr T minusInf = ScoreTiles<T>::minusInf;
    ScoreTiles<T> scores(kind, ScoreBase::Natural, mask, grid, head, keys, queryScale, block);
    const int rows = scores.rows(), s0 = scores.firstRow();
    // Pass 1: the row max and sum the weights are normalised by.
    Column<T> total = Column<T>::Zero(rows), rowMax = Column<T>::Constant(rows, minusInf);
    BoolColumn seen = BoolColumn::Constant(rows, false);
    for (int kb = 0; kb < grid.tileCols; ++kb) {
        auto tile = scores.fill(kb, seen);
        if (tile.rows() == 0) continue;
        if (kind != MixerSpec::Kind::Softmax) {
            total += tile.colwise().sum().transpose().array();
            continue;
        }
        const Column<T> newMax = rowMax.max(tile.colwise().maxCoeff().transpose().array());
        for (Eigen::Index i = 0; i < rows; ++i) {
            const T shift = newMax(i) == minusInf ? T(0) : newMax(i);
            total(i) =
                std::exp(rowMax(i) - shift) * total(i) + (tile.col(i).array() - shift).exp().sum();
        }
        rowMax = newMax;
    }
    const Column<T> shift = (rowMax == minusInf).select(T(0), rowMax);
    Column<T> scaleBy = seen.select(total.inverse(), T(0));
    if (kind == MixerSpec::Kind::Raw) scaleBy.setOnes();
    // Pass 2: the weights, tile by tile, into the cells; blocked entries and empty tiles are 0.
    const auto cellRow = [&](int i) { return (s0 + i) / bh; };
    for (int kb = 0; kb < grid.tileCols; ++kb) {
        const int t0 = kb * grid.colTile, cols = std::min(grid.colTile, grid.n - t0);
        BoolColumn ignored = seen;
        auto tile = scores.fill(kb, ignored);
        for (int i = 0; i < rows; ++i) {
            const Eigen::Index r = cellRow(i);
            for (Eigen::Index t = t0; t < t0 + cols;) {
                const Eigen::Index c = t / bw,
                                   end = std::min<Eigen::Index>((c + 1) * bw, t0 + cols);
                // exp and the scale (>= 0) are monotone: the cell's largest weight is the
                // weight of its largest entry, one exp per cell rather than per entry.
                T best = T(0);
                if (tile.rows()) {
                    const T top = tile.col(i).segment(t - t0, end - t).maxCoeff();
                    best = (kind == MixerSpec::Kind::Softmax ? T(std::exp(top - shift(i))) : top) *
                           scaleBy(i);
                }
                pooled(r, c) = std::max(pooled(r, c), best);
                t = end;
            }
        }
    }
}

} // namespace

template <class T>
Matrix<T> pooledWeights(const MixerSpec& mixer, const MaskSpec& mask, const HeadInputs<T>& head,
                        int maxRows, int maxCols) {
    if (mixer.kind == MixerSpec::Kind::Ssm)
        throw InputError("pooled weights: softmax, softmax_like or raw, not ssm");
    if (maxRows < 1 || maxCols < 1) throw InputError("pooled map: size must be at least 1 x 1");
    const int n = int(head.q->rows());
    if (head.k->rows() != n || head.q->cols() != head.k->cols())
        throw InputError("pooled weights: Q and K must have n rows and one width");
    const Eigen::Index bh = (n + maxRows - 1) / maxRows, bw = (n + maxCols - 1) / maxCols;
    // Query blocks of whole pooled rows (about 128 queries); key blocks as the kernel's.
    const int queryBlock = int(bh * std::max<Eigen::Index>(1, 128 / bh));
    const BlockClassification grid = classifyBlocks(mask, n, queryBlock, KernelTiles{}.keyBlock);
    Matrix<T> pooled = Matrix<T>::Constant((n + bh - 1) / bh, (n + bw - 1) / bw,
                                           -std::numeric_limits<T>::infinity());
    const PackedKeys<T> keys(*head.k, grid.colTile);
    const T scale = mixerScale<T>(mixer, int(head.q->cols()));
    parallelFor(grid.tileRows, [&](long block) {
        poolQueryBlock<T>(mixer.kind, mask, grid, head, keys, scale, int(block), bh, bw, pooled);
    });
    return pooled;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template Matrix<T> maxPool<T>(const Matrix<T>&, int, int, PoolBy);                             \
    template Matrix<T> pooledWeights<T>(const MixerSpec&, const MaskSpec&, const HeadInputs<T>&,   \
                                        int, int);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab::kernels::ATTNLAB_CPU_VARIANT
