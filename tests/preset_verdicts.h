// SPDX-License-Identifier: GPL-3.0-or-later
// The verdict every built-in preset must give for each property it lists: one table, used by the
// CLI test (attnlab-cli check --json) and the explorer test (the property panel).
#pragma once

#include <QTest>

/// Adds the columns `preset` and `expected` ("name=verdict,...", in the preset's order) and a
/// row per preset to the current Qt Test data table.
inline void addPresetVerdictRows() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("expected"); // name=verdict,...
    QTest::newRow("counterexample") << "positional-counterexample"
                                    << "permutation-equivariance=fails,permutation-invariance="
                                       "fails,logit-symmetry=holds,row-sums=holds,tiling=holds";
    QTest::newRow("equivariant") << "equivariant-block"
                                 << "permutation-equivariance=holds,permutation-invariance="
                                    "holds,row-sums=holds,logit-symmetry=fails,gradient=holds";
    QTest::newRow("sliding") << "sliding-window"
                             << "locality=holds,causality=fails,tiling=holds,kv-cache=fails";
    QTest::newRow("causal")
        << "causal-model"
        << "causality=holds,row-sums=holds,permutation-equivariance=fails,gradient=holds,"
           "kv-cache=holds";
    QTest::newRow("ssm a=1") << "ssm-bidirectional"
                             << "permutation-equivariance=holds,permutation-invariance=holds,"
                                "chunkwise=holds,causality=fails";
    QTest::newRow("ssm a=2") << "ssm-decay"
                             << "permutation-equivariance=fails,chunkwise=holds";
    QTest::newRow("ssm causal") << "ssm-causal-chunked"
                                << "chunkwise=holds,causality=holds,permutation-equivariance=fails";
    QTest::newRow("sinusoidal")
        << "sinusoidal-positions"
        << "permutation-equivariance=fails,shift-invariance=fails,row-sums=holds,tiling=holds";
    QTest::newRow("rope")
        << "rope-shift"
        << "shift-invariance=holds,permutation-equivariance=fails,logit-symmetry=fails";
    QTest::newRow("alibi")
        << "alibi-causal"
        << "shift-invariance=holds,causality=holds,logit-symmetry=fails,row-sums=holds";
    QTest::newRow("three layers") << "window-three-layers"
                                  << "locality=holds,causality=fails";
    QTest::newRow("claim too small") << "locality-claim-too-small"
                                     << "locality=fails";
    QTest::newRow("stray cell") << "window-stray-cell"
                                << "locality=fails,causality=fails,row-sums=holds";
    QTest::newRow("float32 tiling") << "flash-tiling-float32"
                                    << "tiling=holds,row-sums=holds,causality=holds,gradient=holds";
    QTest::newRow("all-true by another name") << "mask-as-wide-as-the-sequence"
                                              << "all-true-mask=holds,causality=fails";
    QTest::newRow("almost all-true") << "mask-almost-all-true"
                                     << "all-true-mask=fails,locality=holds";
    QTest::newRow("batch") << "batch-of-sequences"
                           << "batch-invariance=holds,tensor-parallel=holds,data-parallel="
                              "holds,causality=fails";
    QTest::newRow("parallel float32")
        << "parallel-float32"
        << "tensor-parallel=holds,tensor-parallel=holds,batch-invariance=holds,"
           "data-parallel=holds";
}
