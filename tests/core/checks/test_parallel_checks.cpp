// SPDX-License-Identifier: GPL-3.0-or-later
// The batch properties (properties.md §2.11-2.13): batch-invariance, tensor-parallel and
// data-parallel. Each provably holds in exact arithmetic for every model a scenario can state
// (every layer acts on each sequence by itself; splitting an inner dimension only reorders sums),
// so the tests assert exact zeros, the same verdict in float64 and float32, the labelling of
// float differences as rounding, and the labelling logic itself on differences beyond rounding.
#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/checks/check_support.h"
#include "core/io/scenario_reader.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace attnlab;
using nlohmann::json;

namespace {
PropertyReport check(const Scenario& s, const std::string& name, json params = json::object(),
                     std::uint64_t seed = 0) {
    const PropertyCheck* c = findPropertyCheck(name);
    if (!c) throw std::runtime_error("no check " + name);
    return c->run({s, std::move(params), seed, {}, {}});
}
Scenario preset(const std::string& name) {
    return loadScenario("builtin:" + name);
}
const char* const kBatchProperties[] = {"batch-invariance", "tensor-parallel", "data-parallel"};
} // namespace

class TestParallelChecks : public QObject {
    Q_OBJECT
private slots:
    void holdExactlyAlongTheScenarioBatch() {
        const Scenario s = preset("batch-of-sequences");
        for (const char* name : kBatchProperties) {
            const PropertyReport r = check(s, name);
            QVERIFY2(r.verdict == Verdict::Holds, name);
            QVERIFY(r.exact);
            QCOMPARE(r.maxDeviation.json(), json("0"));
            QCOMPARE(r.tolerance.json(), json("0"));
            QCOMPARE(r.difference.value().json(), json({{"kind", "none"}}));
            QVERIFY(!r.witness);
            QCOMPARE(r.checked["sequences"], json(3));
            QCOMPARE(r.checked["lengths"], json({4, 3, 5}));
            QCOMPARE(r.checked["batch"], json("the scenario's tokens and batch"));
            QVERIFY(QString::fromStdString(r.explanation).contains("equal exactly"));
            QVERIFY(QString::fromStdString(r.explanation).contains("always holds"));
        }
    }

    void batchInvarianceChecksEveryArrangement() {
        const PropertyReport r = check(preset("batch-of-sequences"), "batch-invariance");
        const json& arrangements = r.details["per_arrangement"];
        QCOMPARE(arrangements.size(), std::size_t(3));
        QCOMPARE(arrangements[0]["order"], json({0, 1, 2}));
        QCOMPARE(arrangements[1]["order"], json({2, 1, 0}));
        QCOMPARE(arrangements[2]["order"], json({2, 0, 2})); // selected, with a repeat
        for (const json& a : arrangements)
            QCOMPARE(a["deviation"], json("0"));
    }

    void tensorParallelForEveryPartCount_data() {
        QTest::addColumn<int>("parts");
        QTest::addColumn<bool>("wholeHeads"); // the layer has 2 heads
        QTest::newRow("1 part") << 1 << true;
        QTest::newRow("2 parts") << 2 << true;
        QTest::newRow("3 parts") << 3 << false;
        QTest::newRow("4 parts") << 4 << false;
    }
    void tensorParallelForEveryPartCount() {
        QFETCH(int, parts);
        QFETCH(bool, wholeHeads);
        const PropertyReport r =
            check(preset("batch-of-sequences"), "tensor-parallel", {{"parts", parts}});
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.maxDeviation.json(), json("0"));
        QCOMPARE(r.checked["parts"], json(parts));
        const json& layer0 = r.details["per_layer"][0];
        QCOMPARE(layer0["heads_per_part"].is_null(), !wholeHeads);
        QCOMPARE(layer0["output"], json("row-parallel Wo, partial products added"));
        const QString cut = QString("layer 0: %1 parts do not divide 2 head(s)").arg(parts);
        QCOMPARE(QString::fromStdString(r.explanation).contains(cut), !wholeHeads);
    }

    void dataParallelAddsTheWorkersLosses() {
        const PropertyReport r = check(preset("batch-of-sequences"), "data-parallel");
        QCOMPARE(r.details["shards"], json({{0, 1}, {2}}));
        QCOMPARE(r.details["loss_whole_batch"], r.details["loss_data_parallel"]);
        QVERIFY(r.details["loss_whole_batch"] != json("0"));
        QCOMPARE(r.details["gradient_deviation"], json("0"));
        QCOMPARE(r.checked["workers"], json(2));
    }

    void holdInEveryPrecision_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("precision");
        for (const char* p : {"batch-of-sequences", "equivariant-block", "sliding-window"}) {
            QTest::addRow("%s float64", p) << p << int(Precision::Float64);
            QTest::addRow("%s float32", p) << p << int(Precision::Float32);
        }
    }
    void holdInEveryPrecision() {
        QFETCH(QString, preset);
        QFETCH(int, precision);
        Scenario s = ::preset(preset.toStdString());
        s.precision = Precision(precision);
        for (const char* name : kBatchProperties) {
            const PropertyReport r = check(s, name);
            QVERIFY2(r.verdict == Verdict::Holds, name);
            QVERIFY(!r.exact);
            const double deviation = r.maxDeviation.toDouble();
            QVERIFY(deviation <= r.tolerance.toDouble());
            const QString why = QString::fromStdString(r.explanation);
            if (deviation == 0) {
                QCOMPARE(r.difference.value().json(), json({{"kind", "none"}, {"ulps", 0}}));
                QVERIFY(why.contains("bit-for-bit equal (0 ulps)"));
            } else {
                QCOMPARE(r.difference.value().json()["kind"], json("rounding"));
                QVERIFY(r.difference.value().json()["ulps"].get<long>() >= 1);
                QVERIFY2(why.contains("this is rounding, not an error"), r.explanation.c_str());
            }
        }
    }

    void float32TensorParallelShowsRoundingAndHolds_data() {
        QTest::addColumn<int>("parts");
        QTest::newRow("2 parts") << 2;
        QTest::newRow("4 parts") << 4;
    }
    void float32TensorParallelShowsRoundingAndHolds() {
        // Four heads, Wo 8 x 8: the split adds Wo's partial products in another order.
        QFETCH(int, parts);
        const PropertyReport r =
            check(preset("parallel-float32"), "tensor-parallel", {{"parts", parts}});
        QCOMPARE(r.verdict, Verdict::Holds);
        QVERIFY(r.maxDeviation.toDouble() > 0);
        QVERIFY(r.maxDeviation.toDouble() < 1e-5);
        QVERIFY(r.maxDeviation.toDouble() <= r.tolerance.toDouble());
        QCOMPARE(r.difference.value().json()["kind"], json("rounding"));
        QVERIFY(r.difference.value().json()["ulps"].get<long>() >= 1);
        QVERIFY(QString::fromStdString(r.explanation).contains("Wo's partial products"));
        QVERIFY(QString::fromStdString(r.toleranceRule).contains("float32"));
    }

    void drawnBatchIsSeeded() {
        const Scenario s = preset("equivariant-block"); // no batch in the file
        const PropertyReport r = check(s, "batch-invariance", json::object(), 5);
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.checked["sequences"], json(4));
        QCOMPARE(r.checked["lengths"], json({4, 4, 4, 4}));
        QCOMPARE(r.checked["seed"], json(5));
        QVERIFY(r.checked["batch"].get<std::string>().starts_with("drawn"));
        const BatchSetup<Rational> a(s, 5), b(s, 5), c(s, 6);
        QVERIFY(a.sequences[1] == b.sequences[1]);
        QVERIFY(a.sequences[1] != c.sequences[1]);
        QVERIFY(a.sequences[0] == c.sequences[0]); // the scenario's own tokens come first
    }

    void differencesBeyondRoundingAreNotLabelledRounding() {
        // The labelling on its own: zero, within the tolerance, beyond it.
        const long depth = 10;
        Deviation<float> d;
        d.row = d.col = 0;
        d.magnitude = 1;
        PropertyReport none;
        QCOMPARE(settleOrderOnly(none, d, depth, "x"), std::string("bit-for-bit equal (0 ulps)"));
        QCOMPARE(none.difference.value().json()["kind"], json("none"));
        d.largest = std::numeric_limits<float>::epsilon();
        d.ulps = 1;
        PropertyReport rounding;
        const std::string text = settleOrderOnly(rounding, d, depth, "the split");
        QCOMPARE(rounding.verdict, Verdict::Holds);
        QCOMPARE(rounding.difference.value().json(), json({{"kind", "rounding"}, {"ulps", 1}}));
        QVERIFY(text.find("the split changes the order of the sums") != std::string::npos);
        d.largest = 1e-2f;
        PropertyReport beyond;
        QVERIFY(settleOrderOnly(beyond, d, depth, "the split").starts_with("different by more"));
        QCOMPARE(beyond.verdict, Verdict::Fails);
        QCOMPARE(beyond.difference.value().json(), json({{"kind", "beyond rounding"}}));
        Deviation<Rational> exact;
        exact.row = exact.col = 0;
        exact.largest = Rational(1, 3);
        PropertyReport exactReport;
        settleOrderOnly(exactReport, exact, depth, "the split");
        QCOMPARE(exactReport.verdict, Verdict::Fails); // exact mode: any difference fails
        QCOMPARE(exactReport.maxDeviation.json(), json("1/3"));
    }

    void ulpDistanceCountsAdjacentFloats() {
        QCOMPARE(ulpDistance(1.0f, std::nextafter(1.0f, 2.0f)), 1L);
        QCOMPARE(ulpDistance(1.0, std::nextafter(std::nextafter(1.0, 0.0), 0.0)), 2L);
        QCOMPARE(ulpDistance(-0.0, 0.0), 0L);
        const double tiny = std::numeric_limits<double>::denorm_min();
        QCOMPARE(ulpDistance(-tiny, tiny), 2L); // across zero
        // Found by the sanitizer build (rope-shift): the int64 difference of 4 and -4
        // overflowed (undefined behaviour); it is now capped at the largest long.
        QCOMPARE(ulpDistance(4.0, -4.0), std::numeric_limits<long>::max());
        QCOMPARE(ulpDistance(-4.0, 4.0), std::numeric_limits<long>::max());
        QVERIFY(ulpDistance(4.0f, -4.0f) > 2000000000L);
        const Matrix<double> a = Matrix<double>::Constant(1, 2, 1.0);
        Matrix<double> b = a;
        b(0, 1) = std::nextafter(1.0, 2.0) + 2 * std::numeric_limits<double>::epsilon();
        QCOMPARE(compareMatrices<double>(a, b).ulps, 3L);
    }

    void aNanNeverComparesWithinTolerance() {
        // A NaN (or two equal infinities) is the largest deviation, not skipped by the maximum:
        // a check that met one reads as failing, never as holding with a null deviation.
        const Matrix<float> a = Matrix<float>::Constant(2, 2, 1.0f);
        for (const float odd :
             {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
            Matrix<float> b = a, c = a;
            b(1, 0) = odd;
            c(1, 0) = odd;
            for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}, std::pair{b, c}}) {
                const Deviation<float> d = compareMatrices<float>(x, y);
                QCOMPARE(d.largest, std::numeric_limits<float>::infinity());
                QCOMPARE(std::pair(d.row, d.col), std::pair(Eigen::Index(1), Eigen::Index(0)));
            }
        }
    }

    void badParametersAreRefused() {
        const Scenario s = preset("batch-of-sequences");
        QVERIFY_THROWS_EXCEPTION(InputError, check(s, "tensor-parallel", {{"parts", 0}}));
        QVERIFY_THROWS_EXCEPTION(InputError, check(s, "tensor-parallel", {{"parts", "two"}}));
        QVERIFY_THROWS_EXCEPTION(InputError, check(s, "data-parallel", {{"workers", 3}}));
        QVERIFY_THROWS_EXCEPTION(InputError, check(s, "batch-invariance", {{"size", 3}}));
    }
};

QTEST_GUILESS_MAIN(TestParallelChecks)
#include "test_parallel_checks.moc"
