// SPDX-License-Identifier: GPL-3.0-or-later
// The fused kernel: tasks of one head's query blocks (one each, or a run of consecutive ones where
// key blocks are packed on use, or part of one's rows: block_schedule.h), each block streaming
// over the key blocks its mask row of tiles allows, with running accumulators in the tile's own
// scalar type. A source of every variant of the CPU kernels (kernel_variant.h).
#include "core/backend/cpu/block_schedule.h"
#include "core/backend/cpu/kernel_variant.h"
#include "core/backend/cpu/score_tiles.h"
#include "core/backend/cpu/softmax_column.h"
#include "core/backend/cpu/transposed_copy.h"
#include "core/base/error.h"
#include "core/base/parallel.h"

#include <algorithm>

namespace attnlab::kernels::ATTNLAB_CPU_VARIANT {

namespace {

// Where the computed blocks write at least this many bytes of output (all heads), they write it
// past the caches (copyTransposed's pastCaches): a windowed head at n = 16384 (4 MiB) took 5-6%
// less time with AVX-512 and with AVX2; with AVX-512 at n = 8192 as long, at n = 4096 3% more
// (interleaved runs, docs/performance.md).
constexpr double kOutputPastCachesBytes = 4 << 20; // 4 MiB

// What every task of one call shares.
struct Job {
    MixerSpec::Kind kind;
    const MaskSpec& mask;
    const BlockClassification& grid;
    bool outputPastCaches;
};

// One head's keys and values, packed once for all its query blocks (each block packs its own
// queries), and the scale its queries are packed with.
template <class T>
struct PackedHead {
    PackedKeys<T> keys;
    PackedValues<T> values;
    T queryScale;
};

// Rows rowBegin .. rowEnd - 1 (from its first) of one query block of one head's output; marks
// the rows that saw an allowed key.
template <class T>
void attendQueryBlock(const Job& job, const HeadInputs<T>& head, const PackedHead<T>& packed,
                      int block, int rowBegin, int rowEnd, Matrix<T>& out, BoolColumn* seenRows) {
    constexpr T minusInf = ScoreTiles<T>::minusInf;
    if (block * job.grid.rowTile + rowBegin >= job.grid.n) return; // a part past the last row
    ScoreTiles<T> scores(job.kind, ScoreBase::Two, job.mask, job.grid, head, packed.keys,
                         packed.queryScale, block, rowBegin, rowEnd);
    const int rows = scores.rows();
    const PackedValues<T>& values = packed.values;
    Matrix<T> acc = Matrix<T>::Zero(values.stride(), rows); // Σ w·V[t], one column per query
    Column<T> total = Column<T>::Zero(rows);                // Σ w
    // Softmax: Σ w as one packet per query (reduced once, at the end), and each query's shift.
    Matrix<T> sums = Matrix<T>::Zero(kLanes<T>, rows);
    Column<T> shift = Column<T>::Constant(rows, minusInf);
    BoolColumn seen = BoolColumn::Constant(rows, false);
    // Where the tile's scores are exponentiated as the product computes them (ExpOfScores): the
    // sums before the tile, and the queries whose shift must move, which take the second pass.
    const int exponentiable = kExpInScoreProduct ? rows : 0;
    Matrix<T> sumsBefore(kLanes<T>, exponentiable);
    BoolColumn raised(exponentiable);
    for (int kb = 0; kb < job.grid.tileCols; ++kb) {
        // Every query's first tile takes its shift from its scores, and a shift past
        // kWholeShiftLimit (2^21 in float) its 2^x of the difference: the second pass.
        const bool exponentiated = kExpInScoreProduct && scores.exponentiable(kb) &&
                                   std::all_of(shift.begin(), shift.end(), takesScoresAsTheyAre<T>);
        const auto fill = [&] {
            if constexpr (kExpInScoreProduct)
                if (exponentiated) {
                    sumsBefore = sums;
                    raised.setConstant(false);
                    return scores.fill(kb, seen,
                                       ExpOfScores<T>{shift.data(), sums.data(), raised.data()});
                }
            return scores.fill(kb, seen);
        };
        auto tile = fill();
        if (tile.rows() == 0) continue;
        if (job.kind == MixerSpec::Kind::Softmax) {
            const int cols = int(tile.rows());
            for (int i = 0; i < rows; ++i) {
                if (exponentiated) {
                    if (!raised(i)) continue;
                    scores.rescore(i);
                    sums.col(i) = sumsBefore.col(i);
                }
                const auto [lo, hi] = scores.liveKeys(i);
                T* const packet = sums.col(i).data();
                Packet<T> sum = Eigen::internal::ploadu<Packet<T>>(packet);
                expAndSum(scores.column(i), lo, hi, cols, shift(i), sum,
                          [&](T factor) { acc.col(i) *= factor; });
                Eigen::internal::pstoreu(packet, sum);
            }
        } else {
            total += tile.colwise().sum().transpose().array();
        }
        // Σ w·V over the live keys of each group of rows: the others' weights are exactly 0.
        const int t0 = kb * job.grid.colTile;
        for (int r = 0; r < rows; r += scores.rowGroup()) {
            const int count = std::min(scores.rowGroup(), rows - r);
            const auto [lo, hi] = scores.liveKeys(r, count);
            if (lo < hi)
                blockProduct(true, count, hi - lo, scores.column(r) + lo, scores.scratchStride(),
                             values.panel(kb), t0 + lo, 0, values.stride() / kLanes<T>,
                             acc.data() + Eigen::Index(r) * values.stride(), values.stride());
        }
    }
    if (job.kind == MixerSpec::Kind::Softmax) total = sums.colwise().sum().transpose();
    // Normalised on the way out: Σ w·V / Σ w, 0 for a query with no allowed key.
    const Column<T> norm = job.kind == MixerSpec::Kind::Raw
                               ? Column<T>::Ones(rows)
                               : Column<T>(seen.select(total.inverse(), T(0)));
    copyTransposed(values.width(), rows, acc.data(), acc.outerStride(),
                   out.data() + scores.firstRow(), out.outerStride(), T(1), norm.data(),
                   job.outputPastCaches);
    if (seenRows) seenRows->segment(scores.firstRow(), rows) = seen;
}

// Asks for rows r0 .. r0 + rows - 1 of m (column-major: a run in each column) in the
// second-level cache, a line at a time: the transposed copies that pack them read 16 columns at
// once, each column a separate stream, more than the processor's prefetchers follow.
template <class T>
void prefetchRows(const Matrix<T>& m, int r0, int rows) {
    constexpr int perLine = 64 / int(sizeof(T));
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
        const T* const column = m.data() + c * m.outerStride() + r0;
        for (int r = 0; r < rows; r += perLine)
            __builtin_prefetch(column + r, 0, 2);
        __builtin_prefetch(column + rows - 1, 0, 2); // the last line, where r0 is not on one
    }
}

// Prefetches what query block `next` will pack that block `current` did not: its queries, and,
// where key blocks are packed on use, the keys and values of the key blocks it reads and
// `current` does not (of a run of key blocks packed together, only those).
template <class T>
void prefetchNextBlock(const Job& job, const HeadInputs<T>& head, int current, int next,
                       bool packedOnUse) {
    const BlockClassification& grid = job.grid;
    const int s0 = next * grid.rowTile;
    prefetchRows(*head.q, s0, std::min(grid.rowTile, grid.n - s0));
    if (!packedOnUse) return;
    for (int kb = 0; kb < grid.tileCols; ++kb)
        if (grid.at(next, kb) != TileKind::Empty && grid.at(current, kb) == TileKind::Empty) {
            const int t0 = kb * grid.colTile, keys = std::min(grid.colTile, grid.n - t0);
            prefetchRows(*head.k, t0, keys);
            prefetchRows(*head.v, t0, keys);
        }
}

} // namespace

template <class T>
FusedResult<T> fusedAttention(const MixerSpec& mixer, const MaskSpec& mask,
                              const std::vector<HeadInputs<T>>& heads, KernelTiles tiles,
                              int queryRows, const BlockReuse<T>* reuse) {
    if (mixer.kind == MixerSpec::Kind::Ssm)
        throw InputError("the fused kernel takes softmax, softmax_like or raw, not ssm");
    FusedResult<T> result;
    if (heads.empty()) return result;
    const int n = int(heads.front().q->rows());
    for (const HeadInputs<T>& h : heads)
        if (h.q->rows() != n || h.k->rows() != n || h.v->rows() != n || h.q->cols() != h.k->cols())
            throw InputError("fused attention: Q, K, V must have n rows and Q, K one width");
    const BlockClassification grid = classifyBlocks(mask, n, tiles.queryBlock, tiles.keyBlock);
    const T scale = mixerScale<T>(mixer, int(heads.front().q->cols()));
    const bool firstRowsOnly = queryRows >= 0 && queryRows < n;
    if (reuse && !reuse->fits(heads, n))
        throw InputError("fused attention: the evaluation to reuse has other shapes");
    for (std::size_t h = 0; h < heads.size(); ++h) { // not `?:`, which copied each output
        const Eigen::Index width = heads[h].v->cols();
        if (reuse)
            result.outputs.push_back(reuse->output(h));
        else if (firstRowsOnly)
            result.outputs.push_back(Matrix<T>::Zero(n, width));
        else
            result.outputs.emplace_back(n, width);
    }
    const long blocks =
        firstRowsOnly ? (queryRows + grid.rowTile - 1) / grid.rowTile : grid.tileRows;
    std::vector<int> computed; // the longest causal rows first
    for (long block = blocks - 1; block >= 0; --block)
        if (!reuse || reuse->recomputes(grid, int(block))) computed.push_back(int(block));
    const auto count = long(computed.size());
    double writtenBytes = 0; // by the computed blocks, all heads
    for (const HeadInputs<T>& h : heads)
        writtenBytes += double(count) * grid.rowTile * double(h.v->cols()) * sizeof(T);
    const Job job{mixer.kind, mask, grid, writtenBytes >= kOutputPastCachesBytes};
    // Where key blocks are packed on use, a task runs several consecutive query blocks: the
    // blocks it packed for one are still in its cache for the next.
    const Packing packing = packingFor(grid);
    std::vector<PackedHead<T>> packed;
    if (count > 0) // else every block is reused
        for (const HeadInputs<T>& h : heads)
            packed.push_back(
                {PackedKeys<T>(*h.k, grid.colTile * keyBlocksPerScoreProduct<T>(grid.colTile),
                               packing),
                 PackedValues<T>(*h.v, grid.colTile, packing), scale});
    if (packing == Packing::Together) {
        std::vector<const PackedKeys<T>*> keys;
        std::vector<const PackedValues<T>*> values;
        for (const PackedHead<T>& p : packed) {
            keys.push_back(&p.keys);
            values.push_back(&p.values);
        }
        packTogether(keys, values);
    }
    BoolColumn seen = BoolColumn::Constant(n, true); // computed blocks write theirs
    const double work = fusedWork(heads, grid, count, blocks);
    const int threads = loopThreads(work);
    const long run = packing == Packing::OnUse ? std::max(1L, count / (4L * threads)) : 1;
    const std::vector<BlockTask> tasks =
        scheduleBlocks(int(heads.size()), count, run, threads, grid.rowTile);
    parallelFor(
        long(tasks.size()),
        [&](long t) {
            const BlockTask& task = tasks[std::size_t(t)];
            const auto head = std::size_t(task.head);
            for (long i = task.first; i < task.last; ++i) {
                const int block = computed[std::size_t(i)];
                if (i + 1 < task.last)
                    prefetchNextBlock(job, heads[head], block, computed[std::size_t(i + 1)],
                                      packing == Packing::OnUse);
                attendQueryBlock<T>(job, heads[head], packed[head], block, task.rowBegin,
                                    task.rowEnd, result.outputs[head], head == 0 ? &seen : nullptr);
            }
        },
        work);
    for (int s = 0; s < (firstRowsOnly ? queryRows : n); ++s)
        if (!seen(s)) result.allMaskedRows.push_back(s);
    return result;
}

template FusedResult<float> fusedAttention<float>(const MixerSpec&, const MaskSpec&,
                                                  const std::vector<HeadInputs<float>>&,
                                                  KernelTiles, int, const BlockReuse<float>*);
template FusedResult<double> fusedAttention<double>(const MixerSpec&, const MaskSpec&,
                                                    const std::vector<HeadInputs<double>>&,
                                                    KernelTiles, int, const BlockReuse<double>*);

} // namespace attnlab::kernels::ATTNLAB_CPU_VARIANT
