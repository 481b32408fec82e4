// The fused kernel: one task per (head, query block), each streaming over the key blocks its
// mask row of tiles allows, with running accumulators in the tile's own scalar type.
#include "kernels/fused_attention.h"

#include "error.h"
#include "kernels/parallel.h"
#include "kernels/score_tiles.h"

namespace attnlab::kernels {

namespace {

// What every task of one call shares.
template <class T>
struct Job {
    MixerSpec::Kind kind;
    T scale;
    const MaskSpec& mask;
    const BlockClassification& grid;
};

// The rows of one query block of one head's output; marks the rows that saw an allowed key.
template <class T>
void attendQueryBlock(const Job<T>& job, const HeadInputs<T>& head, int block, Matrix<T>& out,
                      BoolColumn* seenRows) {
    constexpr T minusInf = ScoreTiles<T>::minusInf;
    ScoreTiles<T> scores(job.kind, job.scale, job.mask, job.grid, head, block);
    const int rows = scores.rows();
    Matrix<T> acc = Matrix<T>::Zero(rows, head.v->cols()); // Σ w·V[t]
    Column<T> total = Column<T>::Zero(rows);               // Σ w
    Column<T> runMax = Column<T>::Constant(rows, minusInf);
    BoolColumn seen = BoolColumn::Constant(rows, false);
    for (int kb = 0; kb < job.grid.tileCols; ++kb) {
        auto tile = scores.fill(kb, seen);
        if (tile.rows() == 0) continue;
        if (job.kind == MixerSpec::Kind::Softmax) { // running max, rescaling what came before
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
            total += tile.colwise().sum().transpose().array();
        }
        acc.noalias() += tile.transpose() * head.v->middleRows(kb * job.grid.colTile, tile.rows());
    }
    if (job.kind != MixerSpec::Kind::Raw)
        acc = seen.select(total.inverse(), T(0)).matrix().asDiagonal() * acc;
    out.middleRows(scores.firstRow(), rows) = acc;
    if (seenRows) seenRows->segment(scores.firstRow(), rows) = seen;
}

} // namespace

template <class T>
FusedResult<T> fusedAttention(const MixerSpec& mixer, const MaskSpec& mask,
                              const std::vector<HeadInputs<T>>& heads, KernelTiles tiles,
                              int queryRows) {
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
    const bool firstRowsOnly = queryRows >= 0 && queryRows < n;
    for (const HeadInputs<T>& h : heads)
        result.outputs.push_back(firstRowsOnly ? Matrix<T>::Zero(n, h.v->cols())
                                               : Matrix<T>(n, h.v->cols()));
    BoolColumn seen = BoolColumn::Constant(n, false);
    const long blocks =
        firstRowsOnly ? (queryRows + grid.rowTile - 1) / grid.rowTile : grid.tileRows;
    const int covered = firstRowsOnly ? queryRows : n;
    const double work = double(heads.size()) * double(grid.boundedEntries()) *
                        double(heads.front().q->cols() + heads.front().v->cols());
    parallelFor(
        long(heads.size()) * blocks,
        [&](long task) {
            const auto head = std::size_t(task / blocks);
            const int block = int(blocks - 1 - task % blocks); // the longest causal rows first
            attendQueryBlock<T>(job, heads[head], block, result.outputs[head],
                                head == 0 ? &seen : nullptr);
        },
        work);
    for (int s = 0; s < covered; ++s)
        if (!seen(s)) result.allMaskedRows.push_back(s);
    return result;
}

template FusedResult<float> fusedAttention<float>(const MixerSpec&, const MaskSpec&,
                                                  const std::vector<HeadInputs<float>>&,
                                                  KernelTiles, int);
template FusedResult<double> fusedAttention<double>(const MixerSpec&, const MaskSpec&,
                                                    const std::vector<HeadInputs<double>>&,
                                                    KernelTiles, int);

} // namespace attnlab::kernels
