// SPDX-License-Identifier: GPL-3.0-or-later
// How the fused CPU kernel packs and writes its data, against the reference and against itself
// bit for bit: key and value blocks packed on their first use (banded masks), heads wider than a
// vector (the transposed copies' tails), long outputs written past the caches, the scores of
// narrow key blocks computed in runs, and query blocks dealt to two threads in parts of their
// rows (the same bits as on one). ctest runs it on every variant of the CPU kernels this CPU
// has (ATTNLAB_CPU_PATH, kernel_dispatch.h); the score tiles' test runs this file's own build of
// them (the compiler's default target).
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/packed_head.h"
#include "core/backend/cpu/score_tiles.h"
#include "core/kernel_test_data.h"
#include "core/spec/block_classification.h"
#include "core/test_support.h"

#include <QtTest>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace attnlab;
using namespace attnlab::kernels;
using namespace attnlab::test;

namespace {

// Sixteen heads of 1104 tokens, values 64 and 67 wide, write 4.6 MB of float (9 MB of double),
// which the kernel writes past the caches (non-temporal stores, on x86; n is whole cache lines
// of either type, the last query block shorter), and whose keys and values, dense, are packed
// together in one parallel loop (packTogether; on two or more threads, as ctest runs it, split
// between them): each head's output must be the bits of the same head computed alone (0.3 MB,
// cached stores, packed on one thread), for query blocks whose rows start on a cache line
// (128, 16), blocks of which some do and some do not (13, 40: the rest of a strip of columns is
// written through the caches), features past the whole tiles (67), dense and windowed. The
// first mismatch, or an empty string.
template <class T>
QString outputsPastTheCachesMismatch() {
    const int n = 1104, heads = 16;
    std::vector<Matrix<T>> q, k, v;
    for (int h = 0; h < heads; ++h) {
        q.push_back(data<T>(n, 64, 10 + 3 * h));
        k.push_back(data<T>(n, 64, 11 + 3 * h));
        v.push_back(data<T>(n, h % 2 ? 67 : 64, 12 + 3 * h));
    }
    std::vector<HeadInputs<T>> all;
    for (int h = 0; h < heads; ++h)
        all.push_back({&q[h], &k[h], &v[h], std::nullopt});
    for (const MaskSpec& mask : {MaskSpec::all(), MaskSpec::window(40)})
        for (KernelTiles tiles :
             {KernelTiles{}, KernelTiles{16, 16}, KernelTiles{13, 7}, KernelTiles{40, 16}}) {
            const FusedResult<T> together = fusedAttention<T>({}, mask, all, tiles);
            for (int h : {0, 7, heads - 1})
                if (!sameBits(together.outputs[h],
                              fusedAttention<T>({}, mask, {all[h]}, tiles).outputs[0]))
                    return QString("head %1, %2, query block %3")
                        .arg(h)
                        .arg(QString::fromStdString(mask.describe()))
                        .arg(tiles.queryBlock);
        }
    return {};
}

// Where keyBlock is narrower than a register tile's vectors, the tiles of one head's query blocks
// whose scores come from a product over a run of key blocks, against the same keys' entries in
// one tile of every key: the first mismatch, or an empty string.
template <class T>
QString scoreRunMismatch(const MaskSpec& mask, MixerSpec::Kind mixer, const HeadInputs<T>& head,
                         int keyBlock) {
    const int n = int(head.q->rows()), queryBlock = 16;
    const T blocked =
        mixer == MixerSpec::Kind::Softmax ? -std::numeric_limits<T>::infinity() : T(0);
    const BlockClassification whole = classifyBlocks(mask, n, queryBlock, n),
                              grid = classifyBlocks(mask, n, queryBlock, keyBlock);
    const PackedKeys<T> everyKey(*head.k, n),
        inRuns(*head.k, keyBlock * keyBlocksPerScoreProduct<T>(keyBlock));
    for (int block = 0; block < grid.tileRows; ++block) {
        ScoreTiles<T> one(mixer, ScoreBase::Two, mask, whole, head, everyKey, T(0.5), block),
            runs(mixer, ScoreBase::Two, mask, grid, head, inRuns, T(0.5), block);
        BoolColumn seenOne = BoolColumn::Constant(one.rows(), false),
                   seenRuns = BoolColumn::Constant(runs.rows(), false);
        // Every key's score or blocked entry, one column per query.
        Matrix<T> expected = Matrix<T>::Constant(n, one.rows(), blocked);
        if (one.fill(0, seenOne).rows() > 0)
            for (int i = 0; i < one.rows(); ++i)
                expected.col(i) = Eigen::Map<const Vector<T>>(one.column(i), n);
        for (int kb = 0; kb < grid.tileCols; ++kb) {
            const int t0 = kb * keyBlock, cols = std::min(keyBlock, n - t0);
            const bool empty = runs.fill(kb, seenRuns).rows() == 0;
            for (int i = 0; i < runs.rows(); ++i) {
                const Vector<T> got =
                    empty ? Vector<T>(Vector<T>::Constant(cols, blocked))
                          : Vector<T>(Eigen::Map<const Vector<T>>(runs.column(i), cols));
                if (!sameBits(got, expected.col(i).segment(t0, cols)))
                    return QString("query block %1, key block %2, query %3")
                        .arg(block)
                        .arg(kb)
                        .arg(i);
            }
        }
        if ((seenOne != seenRuns).any())
            return QString("query block %1: the queries seen").arg(block);
    }
    return {};
}

// Key blocks narrower than a register tile's vectors take their scores from a product over a run
// of several blocks (keyBlocksPerScoreProduct): each block's tile must hold the bits of the same
// keys in one tile of every key (each score is summed over the depth in order, whatever its
// place in the product), blocked entries blocked alike and the same queries seen, for key blocks
// that divide n and that do not, masks of intervals and of cells with full, partial and empty
// tiles, each mixer, with and without a distance bias. The first mismatch, or an empty string;
// `cases` counts the key blocks that were narrow enough to be run together.
template <class T>
QString scoreRunsMismatch(int& cases) {
    const int n = 75;
    const Matrix<T> q = data<T>(n, 24, 5), k = data<T>(n, 24, 6);
    for (const auto& [name, mask] : maskCatalogue(n))
        for (const MixerSpec::Kind mixer :
             {MixerSpec::Kind::Softmax, MixerSpec::Kind::SoftmaxLike, MixerSpec::Kind::Raw})
            for (const std::optional<DistanceBias> bias :
                 {std::optional<DistanceBias>{}, std::optional{DistanceBias{0.25, false}}})
                for (int keyBlock : {1, 2, 3, 5, 7}) {
                    if (keyBlocksPerScoreProduct<T>(keyBlock) == 1) continue;
                    ++cases;
                    const QString mismatch =
                        scoreRunMismatch<T>(mask, mixer, {&q, &k, &k, bias}, keyBlock);
                    if (!mismatch.isEmpty())
                        return QString("%1, mixer %2%3, key blocks of %4: %5")
                            .arg(name)
                            .arg(int(mixer))
                            .arg(bias ? ", biased" : "")
                            .arg(keyBlock)
                            .arg(mismatch);
                }
    return {};
}

#ifdef _OPENMP
// The outputs and all-masked rows of `heads` computed on one thread, then on two, where the last
// query blocks are dealt in parts of their rows (block_schedule.h): a description of the first
// difference, or an empty string.
template <class T>
QString twoThreadsMismatch(const MixerSpec& mixer, const MaskSpec& mask,
                           const std::vector<HeadInputs<T>>& heads, KernelTiles tiles,
                           int queryRows = -1) {
    omp_set_num_threads(1);
    const FusedResult<T> serial = fusedAttention<T>(mixer, mask, heads, tiles, queryRows);
    omp_set_num_threads(2);
    const FusedResult<T> split = fusedAttention<T>(mixer, mask, heads, tiles, queryRows);
    if (split.allMaskedRows != serial.allMaskedRows) return "the all-masked rows";
    for (std::size_t h = 0; h < heads.size(); ++h)
        if (!sameBits(split.outputs[h], serial.outputs[h])) return QString("head %1").arg(h);
    return {};
}

// Sixty-four heads of 200 tokens: the same bits on two threads as on one, for every mask kind
// (those with an allowed key have work enough for two threads: `threaded` counts the cases the
// kernel runs on two), softmax
// with and without a distance bias and raw, query blocks of 128 and 64 (the last block of 72 and
// of 8 rows, with parts past n). Then runs of query blocks whose key blocks are packed on use
// (two heads of a window at n = 2000), shrinking towards the end, whole and for the first rows
// only. The first mismatch, or an empty string.
template <class T>
QString splitBlocksMismatch(int& threaded) {
    const int n = 200, heads = 64, depth = 16, width = 8;
    std::vector<Matrix<T>> q, k, v;
    for (int h = 0; h < heads; ++h) {
        q.push_back(data<T>(n, depth, 40 + 3 * h));
        k.push_back(data<T>(n, depth, 41 + 3 * h));
        v.push_back(data<T>(n, width, 42 + 3 * h));
    }
    MixerSpec softmax, raw;
    raw.kind = MixerSpec::Kind::Raw;
    const std::pair<MixerSpec, bool> mixers[] = {{softmax, false}, {softmax, true}, {raw, false}};
    for (const auto& [name, mask] : maskCatalogue(n))
        for (const auto& [mixer, biased] : mixers)
            for (KernelTiles tiles : {KernelTiles{}, KernelTiles{64, 16}}) {
                std::vector<HeadInputs<T>> all;
                for (int h = 0; h < heads; ++h)
                    all.push_back(
                        {&q[h], &k[h], &v[h],
                         biased ? std::optional{DistanceBias{0.1 * h, false}} : std::nullopt});
                const BlockClassification grid =
                    classifyBlocks(mask, n, tiles.queryBlock, tiles.keyBlock);
                omp_set_num_threads(2);
                if (loopThreads(fusedWork(all, grid, grid.tileRows, grid.tileRows)) > 1) ++threaded;
                const QString mismatch = twoThreadsMismatch<T>(mixer, mask, all, tiles);
                if (!mismatch.isEmpty())
                    return QString("%1, mixer %2%3, query blocks of %4: %5")
                        .arg(name)
                        .arg(int(mixer.kind))
                        .arg(biased ? ", biased" : "")
                        .arg(tiles.queryBlock)
                        .arg(mismatch);
            }
    const int m = 2000;
    const Matrix<T> wq = data<T>(m, 64, 1), wk = data<T>(m, 64, 2), wv = data<T>(m, 64, 3);
    const std::vector<HeadInputs<T>> window{{&wq, &wk, &wv, std::nullopt},
                                            {&wk, &wq, &wv, std::nullopt}};
    for (int rows : {-1, 1000}) {
        const QString mismatch =
            twoThreadsMismatch<T>(softmax, MaskSpec::window(20), window, {32, 32}, rows);
        if (!mismatch.isEmpty())
            return QString("window packed on use, rows %1: %2").arg(rows).arg(mismatch);
    }
    return {};
}
#endif

} // namespace

class TestKernelLayouts : public QObject {
    Q_OBJECT

private slots:
    // Masks whose query blocks read few key blocks (bands, small blocks) pack each key and value
    // block on its first use, from whichever thread gets there first, and give each task a run
    // of consecutive query blocks: at n = 2000 the work is spread over the threads, so blocks are
    // shared between runs on different threads. Against the reference, with key blocks that
    // divide n and that do not.
    void keyBlocksPackedOnUseEqualReference() {
        const int n = 2000;
        const std::pair<const char*, MaskSpec> masks[] = {
            {"window", MaskSpec::window(20)},
            {"causal_window", MaskSpec::causalWindow(50)},
            {"blocks", MaskSpec::blocks(std::vector<int>(20, 100))}};
        for (const auto& [name, mask] : masks)
            for (KernelTiles tiles : {KernelTiles{}, KernelTiles{32, 48}}) {
                const QString what = QString("%1, key blocks of %2").arg(name).arg(tiles.keyBlock);
                QVERIFY2(packingFor(classifyBlocks(mask, n, tiles.queryBlock, tiles.keyBlock)) ==
                             Packing::OnUse,
                         qPrintable(what + ": packed before the query blocks"));
                QVERIFY2(fusedError<float>(MixerSpec::Kind::Softmax, mask, n, tiles, false, nullptr,
                                           64, 64) < 2e-5,
                         qPrintable("float, " + what));
                QVERIFY2(fusedError<double>(MixerSpec::Kind::Softmax, mask, n, tiles, false,
                                            nullptr, 64, 64) < 1e-12,
                         qPrintable("double, " + what));
            }
    }

    // The same packing on use where only the first rows are wanted, and where an earlier
    // evaluation's blocks are kept: the rows are those of the full evaluation, bit for bit.
    void keyBlocksPackedOnUseKeepFirstRowsAndReuse() {
        const int n = 2000;
        const MaskSpec mask = MaskSpec::window(20);
        const KernelTiles tiles{32, 32};
        QVERIFY(packingFor(classifyBlocks(mask, n, tiles.queryBlock, tiles.keyBlock)) ==
                Packing::OnUse);
        const Matrix<float> q = data<float>(n, 64, 1), k = data<float>(n, 64, 2),
                            v = data<float>(n, 37, 3), v2 = data<float>(n, 64, 4);
        const std::vector<HeadInputs<float>> heads{{&q, &k, &v, std::nullopt},
                                                   {&q, &k, &v2, std::nullopt}};
        const FusedResult<float> full = fusedAttention<float>({}, mask, heads, tiles);
        const FusedResult<float> first = fusedAttention<float>({}, mask, heads, tiles, 1000);
        std::vector<bool> changed(std::size_t(n), false);
        for (int s = 990; s < 1010; ++s)
            changed[std::size_t(s)] = true;
        const BlockReuse<float> reuse(full.outputs, changed);
        const FusedResult<float> again = fusedAttention<float>({}, mask, heads, tiles, -1, &reuse);
        for (std::size_t h = 0; h < heads.size(); ++h) {
            const Matrix<float> head = full.outputs[h].topRows(1000),
                                firstHead = first.outputs[h].topRows(1000);
            QVERIFY2(sameBits(firstHead, head), "the first rows");
            QVERIFY2(sameBits(again.outputs[h], full.outputs[h]), "the reused evaluation");
        }
    }

    // Heads wider than a vector in every variant, neither width a multiple of one (odd), more
    // rows than one packing task takes (256): the packing and the output's transposed copies
    // take whole square tiles in registers and the rest element by element.
    void wideHeadsEqualReference() {
        const int n = 300;
        for (const auto& [name, mask] : maskCatalogue(n))
            for (KernelTiles tiles : {KernelTiles{13, 7}, KernelTiles{}}) {
                QVERIFY2(fusedError<float>(MixerSpec::Kind::Softmax, mask, n, tiles, false, nullptr,
                                           41, 37) < 2e-5,
                         name);
                QVERIFY2(fusedError<double>(MixerSpec::Kind::Softmax, mask, n, tiles, false,
                                            nullptr, 41, 37) < 1e-12,
                         name);
            }
    }

    void scoreRunsAreEachBlocksOwnScores() {
        int cases = 0;
        QString mismatch = scoreRunsMismatch<float>(cases);
        QVERIFY2(mismatch.isEmpty(), qPrintable("float: " + mismatch));
        mismatch = scoreRunsMismatch<double>(cases);
        QVERIFY2(mismatch.isEmpty(), qPrintable("double: " + mismatch));
        QVERIFY2(cases > 0, "no key block was narrow enough to be run with others");
    }

    void splitBlocksAreTheBlocksOnOneThread() {
#ifndef _OPENMP
        QSKIP("built without OpenMP: one thread only, no block is split");
#else
        const int threads = omp_get_max_threads();
        omp_set_num_threads(2);
        const int available = availableThreads();
        omp_set_num_threads(threads);
        if (available < 2) QSKIP("one processor only: no block is split");
        int threaded = 0;
        QString mismatch = splitBlocksMismatch<float>(threaded);
        if (mismatch.isEmpty()) mismatch = splitBlocksMismatch<double>(threaded);
        omp_set_num_threads(threads);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        // 12 of the 14 masks allow a key ("none" and "and_disjoint" none), x 3 mixers x 2 tiles,
        // in float and double.
        QCOMPARE(threaded, 12 * 3 * 2 * 2);
#endif
    }

    void outputsPastTheCachesAreTheCachedOutputs() {
        QString mismatch = outputsPastTheCachesMismatch<float>();
        QVERIFY2(mismatch.isEmpty(), qPrintable("float: " + mismatch));
        mismatch = outputsPastTheCachesMismatch<double>();
        QVERIFY2(mismatch.isEmpty(), qPrintable("double: " + mismatch));
    }
};

QTEST_GUILESS_MAIN(TestKernelLayouts)
#include "test_kernel_layouts.moc"
