// SPDX-License-Identifier: GPL-3.0-or-later
// Requests too large for memory are refused before anything is allocated, with the size named;
// exact arithmetic on long inputs comes with a warning.
#include "core/explore/resource_limits.h"
#include "core/explore/side_by_side.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "core/test_support.h"

#include <QTest>

using namespace attnlab;

namespace {

Scenario withTokens(int n, Precision precision, int heads = 1) {
    Scenario s = loadScenario("builtin:flash-tiling-float32");
    s.tokens = TokenSpec::random(n, 8, 1);
    s.precision = precision;
    s.model.layers[0].heads = heads;
    s.model.layers[0].mixer.tile = 0;
    return s;
}

} // namespace

class TestResourceLimits : public QObject {
    Q_OBJECT
private slots:
    void mapBytesCountsSidesLayersHeadsAndPrecision() {
        QCOMPARE(mapBytes(withTokens(1000, Precision::Float32), 1), 2ull * 1000 * 1000 * 4);
        QCOMPARE(mapBytes(withTokens(1000, Precision::Float64, 2), 2),
                 2ull * 2 * 2 * 1000 * 1000 * 8);
        // Exact entries at what they were measured to take, not a rational's bare 32 bytes: an
        // exact run at n = 8000 is refused (it would need some 30 GB), one at 4000 starts.
        QCOMPARE(mapBytes(withTokens(1000, Precision::Exact), 1), 2ull * 1000 * 1000 * 256);
        QVERIFY(!test::inputErrorOf([&] {
                     checkMapMemory(withTokens(8000, Precision::Exact), 1);
                 }).isNull());
        QVERIFY(test::inputErrorOf([&] {
                    checkMapMemory(withTokens(4000, Precision::Exact), 1);
                }).isNull());
    }

    void oversizedMapsAreRefusedBeforeAllocating() {
        // 40000² float64 scores and weights for two sides: 47.7 GiB. Refused at once: the test
        // would not finish (or would be killed) if it allocated.
        const Scenario s = withTokens(40000, Precision::Float64);
        const QString message = test::inputErrorOf([&] { compareSides(s, Transform{}); });
        QVERIFY2(message.contains("n = 40000") && message.contains("47.7 GiB"),
                 qPrintable(message));
        QVERIFY(test::inputErrorOf([&] {
                    checkMapMemory(withTokens(512, Precision::Float64), 2);
                }).isNull());
    }

    void forwardCostCountsProjectionsMlpAndMaps() {
        // n = 4 tokens of width 2; identity Q, K, V (2 columns each), Wo 2 x 3, an MLP 3 -> 5 -> 3
        // with a gate: per token 2·(2+2+2) + 2·3 + 3·5·3 = 63, maps 4²·(2+2) = 64.
        Scenario s;
        s.tokens = TokenSpec::random(4, 2, 1);
        LayerSpec layer;
        layer.wo = MatrixSpec::given(Matrix<Rational>::Zero(2, 3));
        MlpSpec mlp;
        mlp.up = MatrixSpec::given(Matrix<Rational>::Zero(3, 5));
        mlp.gate = mlp.up;
        layer.mlp = mlp;
        s.model.layers = {layer};
        QCOMPARE(forwardMultiplyAdds(s), 4.0 * 63 + 64);
    }

    void largeModelsCheckOnlyTheirOwnPropertiesOnEdit() {
        for (const PresetInfo& preset : builtinPresets())
            QVERIFY2(checksEveryPropertyOnEdit(loadScenario("builtin:" + preset.name)),
                     preset.name.c_str());
        // GPT-2-small's widths at 64 tokens: about 2.8e9 multiply-adds a forward, 64 sweeps.
        Scenario s;
        s.tokens = TokenSpec::random(64, 768, 1);
        LayerSpec layer;
        layer.heads = 12;
        MlpSpec mlp;
        mlp.up = MatrixSpec::random(1, Rational(1));
        layer.mlp = mlp;
        s.model.layers.assign(12, layer);
        QVERIFY(forwardMultiplyAdds(s) > 2e9);
        QVERIFY(!checksEveryPropertyOnEdit(s));
        s.tokens = TokenSpec::random(4, 768, 1);
        QVERIFY(checksEveryPropertyOnEdit(s));
    }

    void exactArithmeticOnLongInputsWarns() {
        Scenario small = loadScenario("builtin:positional-counterexample");
        QVERIFY(!exactCostWarning(small));
        Scenario s = loadScenario("builtin:window-three-layers");
        s.tokens = TokenSpec::random(200, s.d(), 3);
        const auto warning = exactCostWarning(s);
        QVERIFY(warning);
        QVERIFY(QString::fromStdString(*warning).contains("200 tokens"));
        s.precision = Precision::Float64;
        QVERIFY(!exactCostWarning(s));
    }
};

QTEST_GUILESS_MAIN(TestResourceLimits)
#include "test_resource_limits.moc"
