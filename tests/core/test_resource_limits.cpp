// Requests too large for memory are refused before anything is allocated, with the size named;
// exact arithmetic on long inputs comes with a warning.
#include "core/explore/resource_limits.h"
#include "core/explore/side_by_side.h"
#include "core/io/scenario_reader.h"
#include "test_support.h"

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
