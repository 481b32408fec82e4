// SPDX-License-Identifier: GPL-3.0-or-later
// The fused CPU kernel against the reference mixer (attendHead: weights·V) for float and double,
// every mask kind, sizes that are not multiples of the tile, all-masked rows and ALiBi; the
// block classification against brute force; the pooled map keeps peaks; Model::forward without
// maps (fused) equals the forward with maps (reference). How the kernel packs and writes its data
// is core.kernel_layouts', its online softmax core.kernel_softmax'. ctest runs it on every variant
// of the CPU kernels this CPU has (ATTNLAB_CPU_PATH, kernel_dispatch.h).
#include "core/backend/cpu/cpu_device.h"
#include "core/backend/cpu/fused_attention.h"
#include "core/backend/cpu/kernel_dispatch.h"
#include "core/backend/cpu/pooled_map.h"
#include "core/base/error.h"
#include "core/fixture_block_model.h"
#include "core/kernel_test_data.h"
#include "core/model/model.h"
#include "core/model/row_reach.h"
#include "core/spec/block_classification.h"
#include "core/spec/matrix_spec.h"
#include "core/test_support.h"

#include <QtTest>

#include <algorithm>
#include <utility>

using namespace attnlab;
using namespace attnlab::kernels;
using namespace attnlab::test;

Q_DECLARE_METATYPE(attnlab::MaskSpec)
Q_DECLARE_METATYPE(attnlab::MixerSpec::Kind)

namespace {

/// A layer of two heads with random Q, K and V weights (seeds 5, 6, 7).
LayerSpec twoHeadLayer() {
    LayerSpec layer;
    layer.heads = 2;
    layer.wq = MatrixSpec::random(5);
    layer.wk = MatrixSpec::random(6);
    layer.wv = MatrixSpec::random(7);
    return layer;
}

/// RoPE, then two layers of two heads with Wo and a residual: causal, then window(9).
ModelSpec ropeCausalThenWindow() {
    ModelSpec spec;
    spec.positional.kind = PositionalSpec::Kind::Rope;
    LayerSpec layer = twoHeadLayer();
    layer.wo = MatrixSpec::random(8);
    layer.residual = true;
    layer.mask = MaskSpec::causal();
    spec.layers = {layer, layer};
    spec.layers[1].mask = MaskSpec::window(9);
    return spec;
}

// Model::forwardFrom takes from a record every attention block whose query rows and read
// keys did not change. It must give exactly what a fresh forward of the perturbed tokens
// gives (same blocks, same arithmetic): a block kept that should have been computed again
// shows as a difference. Suffix perturbations (the causality sweep, first rows only) and
// single tokens (the locality sweep), over masks, mixers, positions, tiles and both floats.
template <class T>
void compareForwardFrom(const ModelSpec& spec, int n, const char* what) {
    const Model<T> model(spec, 8);
    QVERIFY(model.reusesBlocks());
    const Matrix<T> x = data<T>(n, 8, 3), bump = data<T>(n, 8, 4);
    const ForwardRecord<T> record = model.record(x);
    auto check = [&](Eigen::Index from, Eigen::Index to, int rows) {
        Matrix<T> xp = x;
        xp.middleRows(from, to - from) += bump.middleRows(from, to - from);
        Evaluation how;
        how.outputRows = rows;
        const Matrix<T> fresh =
            model.forwardBatch({xp}, Maps::Drop, how).front().output.topRows(rows);
        QVERIFY2(model.forwardFrom(record, xp, rows) == fresh,
                 qPrintable(QString("%1: tokens %2..%3 changed, first %4 rows")
                                .arg(what)
                                .arg(from)
                                .arg(to - 1)
                                .arg(rows)));
    };
    for (int m : {1, 63, 64, 65, n / 2, n - 1})
        check(m, n, m);
    for (int t : {0, 64, n / 3, n - 1})
        check(t, t + 1, n);
    QVERIFY(model.forwardFrom(record, x, n) == record.output);
    // Tokens of another length: nothing of the record fits, everything is computed afresh.
    const Matrix<T> longer = data<T>(n + 5, 8, 5);
    Evaluation all;
    all.outputRows = n + 5;
    QVERIFY(model.forwardFrom(record, longer, n + 5) ==
            model.forwardBatch({longer}, Maps::Drop, all).front().output);
}

} // namespace

class TestKernels : public QObject {
    Q_OBJECT

private slots:
    void runsTheVariantAskedFor() {
        qInfo("CPU %s", cpuKernelsSummary().c_str());
        const std::string asked = qEnvironmentVariable("ATTNLAB_CPU_PATH").toStdString();
        if (asked.empty()) QSKIP("no variant asked for: the highest this CPU has runs");
        for (const CpuKernelVariant& v : cpuKernelVariants())
            if (v.name == asked) {
                if (!v.runs) QSKIP("this CPU lacks the variant's instruction set");
                QCOMPARE(chosenCpuKernels().name, asked);
                return;
            }
        QFAIL("ATTNLAB_CPU_PATH names no variant built in");
    }

    // The CPU device names the instruction sets the kernels' choice sees, whatever variant is
    // forced: an emulated processor (qemu-user -cpu Haswell) has no AVX-512 even where its host
    // lists it in /proc/cpuinfo.
    void cpuDeviceNamesTheInstructionSetsTheKernelsSee() {
        const std::vector<std::string> features = makeCpuDevice()->info().features;
        const auto names = [&](const char* isa) {
            return std::find(features.begin(), features.end(), isa) != features.end();
        };
        for (const CpuKernelVariant& v : cpuKernelVariants()) {
            if (v.name == "x86-64-v3") {
                QCOMPARE(names("avx2"), v.runs);
                QCOMPARE(names("fma"), v.runs);
            }
            if (v.name == "x86-64-v4") QCOMPARE(names("avx512f"), v.runs);
        }
    }

    void fusedEqualsReference_data() {
        QTest::addColumn<MixerSpec::Kind>("kind");
        QTest::addColumn<MaskSpec>("mask");
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("alibi");
        const std::pair<const char*, MixerSpec::Kind> kinds[] = {
            {"softmax", MixerSpec::Kind::Softmax},
            {"softmax_like", MixerSpec::Kind::SoftmaxLike},
            {"raw", MixerSpec::Kind::Raw}};
        for (int n : {37, 70})
            for (const auto& [kname, kind] : kinds)
                for (const auto& [mname, mask] : maskCatalogue(n))
                    QTest::addRow("%s/%s/n=%d", kname, mname, n) << kind << mask << n << false;
        for (const auto& [mname, mask] : maskCatalogue(45))
            QTest::addRow("softmax/%s/alibi", mname)
                << MixerSpec::Kind::Softmax << mask << 45 << true;
    }
    void fusedEqualsReference() {
        QFETCH(MixerSpec::Kind, kind);
        QFETCH(MaskSpec, mask);
        QFETCH(int, n);
        QFETCH(bool, alibi);
        // Key blocks narrower than a register tile (1, 3, 7) have their scores computed in runs
        // of several blocks, the last run ragged.
        for (KernelTiles tiles : {KernelTiles{8, 16}, KernelTiles{13, 7}, KernelTiles{8, 1},
                                  KernelTiles{16, 3}, KernelTiles{}}) {
            QVERIFY2(fusedError<float>(kind, mask, n, tiles, alibi) < 2e-5, "float");
            QVERIFY2(fusedError<double>(kind, mask, n, tiles, alibi) < 1e-12, "double");
        }
    }

    void allMaskedRowsAreZero() {
        std::vector<int> masked;
        QVERIFY(fusedError<double>(MixerSpec::Kind::Softmax, MaskSpec::custom(customCells(20)), 20,
                                   {8, 8}, false, &masked) < 1e-12);
        QCOMPARE(masked, std::vector<int>{3});
        QVERIFY(fusedError<float>(MixerSpec::Kind::Softmax, MaskSpec::none(), 9, {4, 4}, false,
                                  &masked) == 0);
        QCOMPARE(int(masked.size()), 9);
    }

    // The throw is in the variant's code, which has its own copy of InputError's type_info: the
    // catch here must still match it (by name).
    void refusesSsm() {
        MixerSpec ssm;
        ssm.kind = MixerSpec::Kind::Ssm;
        const Eigen::MatrixXd x = data<double>(4, 2, 1);
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 fusedAttention<double>(ssm, MaskSpec::all(), {{&x, &x, &x, {}}}));
    }

    void classificationMatchesBruteForce_data() {
        QTest::addColumn<MaskSpec>("mask");
        QTest::addColumn<int>("n");
        for (int n : {1, 50, 64, 77})
            for (const auto& [name, mask] : maskCatalogue(std::max(n, 12))) {
                if (n < 12) continue;
                QTest::addRow("%s/n=%d", name, n) << mask << n;
            }
        QTest::addRow("all/n=1") << MaskSpec::all() << 1;
        QTest::addRow("dilated1") << MaskSpec::dilated(4, 1) << 40;
        QTest::addRow("prefix0") << MaskSpec::prefix(0) << 30;
        QTest::addRow("global_causal") << MaskSpec::global(5, MaskSpec::causal()) << 40;
        QTest::addRow("or_of_partials")
            << MaskSpec::either({MaskSpec::causal(), MaskSpec::negation(MaskSpec::causal())}) << 33;
    }
    void classificationMatchesBruteForce() {
        QFETCH(MaskSpec, mask);
        QFETCH(int, n);
        const BoolMatrix cells = buildMask(mask, n);
        QCOMPARE(allowedEntries(mask, n), (long long)cells.count());
        for (auto [rt, ct] : {std::pair{8, 8}, {16, 5}, {7, 13}, {1, 1}, {64, 256}}) {
            const BlockClassification fast = classifyBlocks(mask, n, rt, ct);
            const BlockClassification brute = classifyBlocks(cells, rt, ct);
            QCOMPARE(fast.tileRows, brute.tileRows);
            QCOMPARE(fast.tileCols, brute.tileCols);
            QVERIFY2(fast.kinds == brute.kinds, qPrintable(QString("tile %1x%2").arg(rt).arg(ct)));
            QVERIFY(fast.boundedEntries() >= (long long)cells.count());
            for (int i = 0; i < fast.tileRows; ++i)
                for (int j = 0; j < fast.tileCols; ++j) {
                    const int s0 = i * rt, t0 = j * ct;
                    const int rows = std::min(rt, n - s0), cols = std::min(ct, n - t0);
                    QVERIFY(
                        (tileMask(mask, n, s0, rows, t0, cols) == cells.block(s0, t0, rows, cols))
                            .all());
                }
        }
    }

    void windowCostFollowsAllowedEntries() {
        // window(128) at n = 16384 with the kernel's tiles: a small fraction of the dense tiles.
        const KernelTiles t;
        const auto c = classifyBlocks(MaskSpec::window(128), 16384, t.queryBlock, t.keyBlock);
        QVERIFY(double(c.boundedEntries()) < 0.05 * 16384.0 * 16384.0);
        QVERIFY(c.count(TileKind::Empty) > 0.9 * double(c.kinds.size()));
        // Counted without the 16384² matrix: every row's 2r + 1 keys, less those past the edges.
        QCOMPARE(allowedEntries(MaskSpec::window(128), 16384), 16384LL * 257 - 128LL * 129);
    }

    void pooledMapKeepsPeaks() {
        Eigen::MatrixXd map = (data<double>(1000, 997, 4).array().abs() * 0.1).matrix();
        map(517, 3) = 5;
        map(999, 996) = 4;
        const Eigen::MatrixXd pooled = maxPool<double>(map, 100, 64);
        QVERIFY(pooled.rows() <= 100 && pooled.cols() <= 64);
        QCOMPARE(pooled(51, 0), 5.0);
        QCOMPARE(pooled(pooled.rows() - 1, pooled.cols() - 1), 4.0);
        const int bh = 10, bw = 16; // ceil(1000/100), ceil(997/64)
        for (Eigen::Index i = 0; i < pooled.rows(); ++i)
            for (Eigen::Index j = 0; j < pooled.cols(); ++j)
                QCOMPARE(pooled(i, j),
                         map.block(i * bh, j * bw, std::min<Eigen::Index>(bh, 1000 - i * bh),
                                   std::min<Eigen::Index>(bw, 997 - j * bw))
                             .maxCoeff());
        QVERIFY(maxPool<double>(map, 2000, 2000) == map);
    }

    void magnitudePoolingKeepsSignedPeaks() {
        // Differences and scores have peaks of both signs: a cell keeps its entry of largest
        // |value| with the sign, whichever way the block is ragged; a tie goes to the positive.
        Eigen::MatrixXf map = data<float>(1031, 2050, 7) * 0.1f;
        map(1030, 5) = -9; // in the ragged last row block
        map(3, 2049) = 8;  // in the ragged last column block
        map(100, 100) = -7;
        map(101, 101) = 7; // same 2 x 3 block as (100, 100)
        const Eigen::MatrixXf pooled = maxPool<float>(map, 1024, 1024, PoolBy::Magnitude);
        const int bh = 2, bw = 3; // ceil(1031/1024), ceil(2050/1024)
        QCOMPARE(pooled.rows(), 516);
        QCOMPARE(pooled.cols(), 684);
        QCOMPARE(pooled(515, 1), -9.0f);
        QCOMPARE(pooled(1, 683), 8.0f);
        QCOMPARE(pooled(50, 33), 7.0f);
        for (Eigen::Index i = 0; i < pooled.rows(); ++i)
            for (Eigen::Index j = 0; j < pooled.cols(); ++j) {
                const auto block =
                    map.block(i * bh, j * bw, std::min<Eigen::Index>(bh, 1031 - i * bh),
                              std::min<Eigen::Index>(bw, 2050 - j * bw));
                QCOMPARE(std::abs(pooled(i, j)), block.cwiseAbs().maxCoeff());
                QVERIFY((block.array() == pooled(i, j)).any());
            }
    }

    void pooledWeightsEqualPooledReference_data() {
        QTest::addColumn<MixerSpec::Kind>("kind");
        QTest::addColumn<MaskSpec>("mask");
        QTest::addColumn<bool>("alibi");
        const std::pair<const char*, MixerSpec::Kind> kinds[] = {
            {"softmax", MixerSpec::Kind::Softmax},
            {"softmax_like", MixerSpec::Kind::SoftmaxLike},
            {"raw", MixerSpec::Kind::Raw}};
        for (const auto& [kname, kind] : kinds)
            for (const auto& [mname, mask] : maskCatalogue(300))
                QTest::addRow("%s/%s", kname, mname) << kind << mask << false;
        QTest::addRow("softmax/causal/alibi")
            << MixerSpec::Kind::Softmax << MaskSpec::causal() << true;
    }
    void pooledWeightsEqualPooledReference() {
        QFETCH(MixerSpec::Kind, kind);
        QFETCH(MaskSpec, mask);
        QFETCH(bool, alibi);
        const int n = 300;
        MixerSpec mixer;
        mixer.kind = kind;
        const Eigen::MatrixXd q = data<double>(n, 8, 1), k = data<double>(n, 8, 2);
        const Eigen::MatrixXd bias = aliBias<double>(n, 0.25, false);
        const Eigen::MatrixXd weights =
            attendHead<double>(mixer, q, k, k, alibi ? &bias : nullptr, buildMask(mask, n)).weights;
        HeadInputs<double> head{&q, &k, &k, std::nullopt};
        if (alibi) head.bias = DistanceBias{0.25, false};
        for (auto [h, w] : {std::pair{7, 11}, {300, 300}, {1, 1}, {64, 40}}) {
            const Eigen::MatrixXd expected = maxPool<double>(weights, h, w);
            const Eigen::MatrixXd pooled = pooledWeights<double>(mixer, mask, head, h, w);
            QCOMPARE(pooled.rows(), expected.rows());
            QCOMPARE(pooled.cols(), expected.cols());
            const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
            QVERIFY2((pooled - expected).cwiseAbs().maxCoeff() < 1e-12 * scale,
                     qPrintable(QString("%1 x %2").arg(h).arg(w)));
        }
    }

    void modelWithoutMapsEqualsWithMaps_data() {
        QTest::addColumn<int>("positional");
        QTest::addRow("none") << int(PositionalSpec::Kind::None);
        QTest::addRow("rope") << int(PositionalSpec::Kind::Rope);
        QTest::addRow("alibi") << int(PositionalSpec::Kind::Alibi);
    }
    void modelWithoutMapsEqualsWithMaps() {
        QFETCH(int, positional);
        ModelSpec spec;
        spec.positional.kind = PositionalSpec::Kind(positional);
        LayerSpec layer = twoHeadLayer();
        layer.mask = MaskSpec::causalWindow(7);
        spec.layers = {layer, layer};
        spec.layers[1].mask = MaskSpec::custom(customCells(41));
        const Model<float> model(spec, 8);
        const Eigen::MatrixXf x = data<float>(41, 8, 9);
        const Trace<float> kept = model.forward(x, Maps::Keep),
                           dropped = model.forward(x, Maps::Drop);
        QVERIFY(dropped.layers[0].heads.empty());
        QCOMPARE(dropped.warnings, kept.warnings);
        QVERIFY((dropped.output - kept.output).cwiseAbs().maxCoeff() <
                1e-5f * std::max(1.0f, kept.output.cwiseAbs().maxCoeff()));
    }

    void aTileLongerThanTheSequenceIsOneTile() {
        // tile may be up to 65536 whatever n is: a tile longer than the sequence is one tile,
        // the untiled result.
        ModelSpec spec;
        LayerSpec layer = twoHeadLayer();
        layer.mask = MaskSpec::causal();
        spec.layers = {layer};
        ModelSpec tiled = spec;
        tiled.layers[0].mixer.tile = 65536;
        const Eigen::MatrixXd x = data<double>(12, 8, 4);
        const Eigen::MatrixXd plain = Model<double>(spec, 8).forward(x, Maps::Drop).output;
        const Eigen::MatrixXd once = Model<double>(tiled, 8).forward(x, Maps::Drop).output;
        QVERIFY((plain - once).cwiseAbs().maxCoeff() < 1e-12);
    }

    void firstOutputRowsEqualTheFullForward() {
        // Evaluation::outputRows lets the last layer skip query blocks past the rows a sweep
        // reads; those rows must be exactly what the full forward gives.
        const Model<float> model(ropeCausalThenWindow(), 8);
        const Eigen::MatrixXf x = data<float>(300, 8, 3);
        const Eigen::MatrixXf full = model.forward(x, Maps::Drop).output;
        for (int rows : {1, 63, 64, 65, 299}) {
            Evaluation how;
            how.outputRows = rows;
            const Trace<float> part = model.forwardBatch({x}, Maps::Drop, how).front();
            QVERIFY2(part.output.topRows(rows) == full.topRows(rows),
                     qPrintable(QString("first %1 rows").arg(rows)));
            QVERIFY(part.warnings.empty());
        }
    }

    void forwardFromEqualsAFreshForwardBitForBit() {
        const ModelSpec rope = ropeCausalThenWindow(); // ragged blocks at n = 300
        compareForwardFrom<float>(rope, 300, "rope, causal + window(9)");
        if (QTest::currentTestFailed()) return;

        ModelSpec alibi = rope; // causal ALiBi, ffn, a tiled softmax_like layer, a dense one
        alibi.positional.kind = PositionalSpec::Kind::Alibi;
        alibi.positional.causal = true;
        alibi.layers[0].ffn = MatrixSpec::random(9);
        alibi.layers[0].mixer.kind = MixerSpec::Kind::SoftmaxLike;
        alibi.layers[0].mixer.tile = 16;
        alibi.layers[1].mask = MaskSpec::all();
        compareForwardFrom<double>(alibi, 150, "alibi, tiled softmax_like + all");
        if (QTest::currentTestFailed()) return;

        ModelSpec raw; // raw windows: dependencies spread two tokens per layer
        LayerSpec window = twoHeadLayer();
        window.mixer.kind = MixerSpec::Kind::Raw;
        window.mask = MaskSpec::window(2);
        raw.layers = {window, window};
        compareForwardFrom<float>(raw, 130, "raw, window(2) twice");
        if (QTest::currentTestFailed()) return;

        // Norms, MLP, biases, GQA: causal (every layer taken from the record while the changed
        // rows are past the wanted ones), a causal window, and all (every layer computed).
        compareForwardFrom<float>(normMlpGqaModel(MaskSpec::causal()), 140, "block, causal");
        if (QTest::currentTestFailed()) return;
        compareForwardFrom<double>(normMlpGqaModel(MaskSpec::causalWindow(5)), 90,
                                   "block, causal window(5)");
        if (QTest::currentTestFailed()) return;
        compareForwardFrom<float>(normMlpGqaModel(MaskSpec::all()), 100, "block, all");
    }

    // The input rows the first output rows read, layer by layer: a causal layer reads no row
    // past them, a window(2) layer two more, an all layer every row.
    void neededInputRowsFollowTheMasks() {
        const int n = 20;
        const std::vector<int> causal = prefixReach(MaskSpec::causal(), n);
        QCOMPARE(causal[0], 1);
        QCOMPARE(causal[n - 1], n);
        const std::vector<int> window = prefixReach(MaskSpec::window(2), n);
        QCOMPARE(window[4], 7);
        QCOMPARE(window[n - 1], n);
        QCOMPARE(prefixReach(MaskSpec::all(), n)[0], n);
        QCOMPARE(neededInputRows({causal, causal}, 5), (std::vector<int>{5, 5, 5}));
        QCOMPARE(neededInputRows({window, causal, window}, 5), (std::vector<int>{9, 7, 7, 5}));
        QCOMPARE(neededInputRows({prefixReach(MaskSpec::all(), n), causal}, 3),
                 (std::vector<int>{n, 3, 3}));
    }
};

QTEST_GUILESS_MAIN(TestKernels)
#include "test_kernels.moc"
