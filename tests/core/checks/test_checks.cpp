// SPDX-License-Identifier: GPL-3.0-or-later
// Property checks: for every property a scenario where it provably holds and one where it provably
// fails, asserting the verdict, the exact deviation and the witness.
#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/checks/model_cache.h"
#include "core/fixture_block_model.h"
#include "core/io/scenario_reader.h"

#include <QtTest>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace attnlab;
using nlohmann::json;

namespace {
PropertyReport check(const Scenario& s, const std::string& name, json params = json::object()) {
    const PropertyCheck* c = findPropertyCheck(name);
    if (!c) throw std::runtime_error("no check " + name);
    return c->run({s, std::move(params), 0, {}, {}});
}
PropertyReport checkPreset(const std::string& preset, const std::string& name,
                           json params = json::object()) {
    return check(loadScenario("builtin:" + preset), name, std::move(params));
}
} // namespace

class TestChecks : public QObject {
    Q_OBJECT
private slots:
    void eachPropertyNamesItsSectionOfTheMathematics() {
        QCOMPARE(propertySection("permutation-equivariance"), std::string("2.1"));
        QCOMPARE(propertySection("locality"), std::string("2.3"));
        QCOMPARE(propertySection("all-true-mask"), std::string("2.7"));
        QCOMPARE(propertySection("shift-invariance"), std::string("2.10"));
        QCOMPARE(propertySection("gradient"), std::string("2.14"));
        QCOMPARE(propertySection("no-such-property"), std::string());
    }

    void counterexampleFailsWithHandComputedFractions() {
        const PropertyReport r =
            checkPreset("positional-counterexample", "permutation-equivariance");
        QCOMPARE(r.verdict, Verdict::Fails);
        QVERIFY(r.exact);
        QCOMPARE(r.maxDeviation.json(), json("5/9")); // |1 - 14/9| in row 0, column 0
        QCOMPARE(r.tolerance.json(), json("0"));
        QCOMPARE(r.witness->json()["permutation"], json({1, 0}));
        QCOMPARE(r.witness->json()["row"], json(0));
        QCOMPARE(r.witness->json()["column"], json(0));
        QCOMPARE(r.witness->json()["transformed_then_model"], json("1"));
        QCOMPARE(r.witness->json()["model_then_transformed"], json("14/9"));
        QCOMPARE(r.checked["exhaustive"], json(true));
        QCOMPARE(r.checked["planned"], json(2));      // the scenario's swap, then all of S_2 but id
        QCOMPARE(r.checked["permutations"], json(1)); // the first fails: the rest is not needed
        QVERIFY(QString::fromStdString(r.explanation).contains("polynomial"));
        QCOMPARE(r.shrunkWitness->json()["transposition"], json({0, 1}));
        QCOMPARE(r.shrunkWitness->json()["n"], json(2));
    }

    void invarianceOfThePooledReadout() {
        // Pooled: column sums of f(P X) = (2, 15/14, 2) vs of f(X) = (23/9, 23/18, 2).
        const PropertyReport fails =
            checkPreset("positional-counterexample", "permutation-invariance");
        QCOMPARE(fails.verdict, Verdict::Fails);
        QCOMPARE(fails.maxDeviation.json(), json("5/9"));
        QCOMPARE(fails.witness->json()["row"], json("pooled"));
        QCOMPARE(checkPreset("equivariant-block", "permutation-invariance").verdict,
                 Verdict::Holds);
    }

    void equivarianceHoldsExactlyWithoutPositions() {
        const PropertyReport r = checkPreset("equivariant-block", "permutation-equivariance");
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.maxDeviation.json(), json("0"));
        QCOMPARE(r.checked["exhaustive"], json(true)); // 4! = 24 <= 32
        QCOMPARE(r.checked["permutations"], json(24)); // the scenario's σ + 23 non-identity σ
        QVERIFY(!r.witness);
        QCOMPARE(checkPreset("ssm-bidirectional", "permutation-equivariance").verdict,
                 Verdict::Holds);
    }

    void equivarianceFailsForMasksDecayAndSinusoids_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("cause");
        QTest::newRow("causal mask") << "causal-model"
                                     << "layer 0's mask causal";
        QTest::newRow("ssm a = 2") << "ssm-decay"
                                   << "ssm decay a = 2";
        QTest::newRow("causal ssm") << "ssm-causal-chunked"
                                    << "causal ssm scan";
        QTest::newRow("sinusoidal") << "sinusoidal-positions"
                                    << "absolute positional features (sinusoidal)";
        QTest::newRow("rope") << "rope-shift"
                              << "relative positions (rope)";
    }
    void equivarianceFailsForMasksDecayAndSinusoids() {
        QFETCH(QString, preset);
        QFETCH(QString, cause);
        const PropertyReport r = checkPreset(preset.toStdString(), "permutation-equivariance");
        QCOMPARE(r.verdict, Verdict::Fails);
        QVERIFY2(QString::fromStdString(r.explanation).contains(cause), r.explanation.c_str());
        QVERIFY(r.shrunkWitness.has_value());
        QCOMPARE(r.shrunkWitness->json()["transposition"].size(), std::size_t(2));
        QVERIFY(r.shrunkWitness->json()["n"].get<std::size_t>() <=
                r.witness->json()["permutation"].size());
    }

    // Layers that share a mask are named once, in runs: not one clause per layer.
    void equivarianceNamesLayersOfOneMaskOnce() {
        Scenario s = loadScenario("builtin:causal-model");
        s.model.layers = {s.model.layers.front(), s.model.layers.front(), s.model.layers.front()};
        s.model.layers[1].mask = MaskSpec::window(1);
        const std::string why = check(s, "permutation-equivariance").explanation;
        QVERIFY2(why.find("the masks of layers 0, 2 (causal) are fixed, not conjugated by σ; "
                          "layer 1's mask window(1) is fixed") != std::string::npos,
                 why.c_str());
        s.model.layers[1].mask = MaskSpec::causal();
        const std::string one = check(s, "permutation-equivariance").explanation;
        QVERIFY2(one.find("the masks of layers 0–2 (causal)") != std::string::npos, one.c_str());
    }

    void samplingWhenNFactorialExceedsTheBudget() {
        const Scenario s = loadScenario("builtin:window-three-layers"); // n = 10
        const PropertyReport r = check(s, "permutation-equivariance", {{"samples", 5}});
        QCOMPARE(r.checked["exhaustive"], json(false));
        QCOMPARE(r.checked["planned"], json(5));
        QCOMPARE(r.checked["permutations"], json(1)); // the first σ drawn already fails
        QCOMPARE(r.verdict, Verdict::Fails);          // window masks are not conjugation-invariant
    }

    void localityRadiusIsLTimesR_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("radius");
        QTest::newRow("2 layers") << "sliding-window" << 2;
        QTest::newRow("3 layers") << "window-three-layers" << 3;
    }
    void localityRadiusIsLTimesR() {
        QFETCH(QString, preset);
        QFETCH(int, radius);
        const PropertyReport r = checkPreset(preset.toStdString(), "locality");
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.details["measured_radius"], json(radius)); // attained, never more
        QCOMPARE(r.details["bound_radius"], json(radius));
        QCOMPARE(r.details["bound_attained"], json(true));
        QCOMPARE(r.maxDeviation.json(), json("0"));
    }

    void localityClaimTooSmallFailsWithAWitnessTwoApart() {
        const PropertyReport r =
            checkPreset("locality-claim-too-small", "locality", {{"radius", 1}});
        QCOMPARE(r.verdict, Verdict::Fails);
        QCOMPARE(r.witness->json()["distance"], json(2));
        QCOMPARE(r.shrunkWitness->json()["distance"], json(2));
        QVERIFY(r.maxDeviation.json() != json("0"));
    }

    void oneWindowLayerHasRadiusR() {
        Scenario s = loadScenario("builtin:sliding-window");
        s.model.layers.pop_back();
        const PropertyReport r = check(s, "locality", {{"radius", 1}});
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.details["measured_radius"], json(1));
    }

    void causality_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("holds");
        QTest::newRow("causal softmax") << "causal-model" << true;
        QTest::newRow("causal ssm") << "ssm-causal-chunked" << true;
        QTest::newRow("causal alibi") << "alibi-causal" << true;
        QTest::newRow("window") << "sliding-window" << false;
        QTest::newRow("bidirectional ssm") << "ssm-bidirectional" << false;
    }
    void causality() {
        QFETCH(QString, preset);
        QFETCH(bool, holds);
        const PropertyReport r = checkPreset(preset.toStdString(), "causality");
        QCOMPARE(r.verdict, holds ? Verdict::Holds : Verdict::Fails);
        if (!holds)
            QVERIFY(r.witness->json()["input_token"].get<int>() >
                    r.witness->json()["output_row"].get<int>());
        QCOMPARE(r.checked["blocked_weights_nonzero"], json(0));
    }

    // Blocks as checkpoints have them (norms, MLP, biases, GQA): the causality sweep takes
    // every layer below a perturbed suffix from its record, and still finds a later token when
    // the mask lets a query see one.
    void causalityOfNormMlpBlocks_data() {
        QTest::addColumn<bool>("causal");
        QTest::newRow("causal") << true;
        QTest::newRow("all") << false;
    }
    void causalityOfNormMlpBlocks() {
        QFETCH(bool, causal);
        Scenario s;
        s.precision = Precision::Float32;
        s.tokens = TokenSpec::random(40, 8, 3);
        s.model = normMlpGqaModel(causal ? MaskSpec::causal() : MaskSpec::all());
        const PropertyReport r = check(s, "causality");
        QCOMPARE(r.verdict, causal ? Verdict::Holds : Verdict::Fails);
        QCOMPARE(r.checked["perturbed_suffixes"], json(39));
        if (causal) return;
        QVERIFY2(r.explanation == "layers 0–1 (all) let a query see later tokens",
                 r.explanation.c_str()); // named once for both layers
        QVERIFY(r.witness);
        QVERIFY(r.witness->json()["input_token"].get<int>() >
                r.witness->json()["output_row"].get<int>());
    }

    // The checks run together share one model per scenario and precision; each reports what it
    // reports alone.
    void checksRunTogetherShareOneModel() {
        const Scenario s = loadScenario("builtin:causal-model");
        ModelCache models(s);
        QVERIFY(models.serves(s));
        QVERIFY(!models.serves(Scenario(s)));
        QCOMPARE(models.model<double>().get(), models.model<double>().get());
        QVERIFY(models.model<float>().get() != nullptr);
        const std::vector<CheckSpec> specs = {{"causality", json::object()},
                                              {"permutation-equivariance", json::object()},
                                              {"row-sums", json::object()},
                                              {"batch-invariance", json::object()}};
        const std::vector<PropertyReport> together = runChecks(s, specs, 0);
        QCOMPARE(together.size(), specs.size());
        for (std::size_t i = 0; i < specs.size(); ++i)
            QCOMPARE(reportJson(together[i]).dump(),
                     reportJson(check(s, specs[i].name, specs[i].params)).dump());
    }

    void sweepsReportTheSameOnOneThreadAndOnTwo_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("property");
        QTest::newRow("causal: holds") << "causal-model"
                                       << "causality";
        QTest::newRow("window: fails, witness") << "sliding-window"
                                                << "causality";
        QTest::newRow("window: locality") << "sliding-window"
                                          << "locality";
        QTest::newRow("tiling") << "flash-tiling-float32"
                                << "tiling";
        QTest::newRow("gradient") << "flash-tiling-float32"
                                  << "gradient";
        QTest::newRow("equivariance: stops, shrinks") << "causal-model"
                                                      << "permutation-equivariance";
    }
    void sweepsReportTheSameOnOneThreadAndOnTwo() {
        // At n = 512 each of these sweeps is above kernels::kParallelWork, so its forwards are
        // spread over the threads; each writes its own results, merged in order, so the report
        // must not depend on the thread count.
#ifndef _OPENMP
        QSKIP("built without OpenMP: every sweep is serial");
#else
        QFETCH(QString, preset);
        QFETCH(QString, property);
        Scenario s = loadScenario("builtin:" + preset.toStdString());
        s.tokens = TokenSpec::random(512, s.d(), 11);
        if (s.precision == Precision::Exact)
            s.precision = Precision::Float64; // seconds, not minutes
        const int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        const json serial = reportJson(check(s, property.toStdString()));
        omp_set_num_threads(2);
        const json threaded = reportJson(check(s, property.toStdString()));
        omp_set_num_threads(threads);
        QCOMPARE(threaded.dump(), serial.dump());
        if (property == "permutation-equivariance") { // σ in rounds of one, then of two
            QCOMPARE(serial["checked"]["permutations"], json(1));
            QVERIFY(serial["shrunk_witness"]["n"].get<int>() < 512);
        }
        if (property == "causality") {
            QCOMPARE(serial["checked"]["perturbed_suffixes"], json(511));
            if (preset == "sliding-window") { // the witness pair names a later token
                QVERIFY(serial["witness"]["input_token"].get<int>() >
                        serial["witness"]["output_row"].get<int>());
                QCOMPARE(serial["details"]["dependency_map"].size(), std::size_t(512));
            }
        }
#endif
    }

    void dependenciesAreJudgedAtEachRowsScale() {
        // Two raw window(1) layers in float32, one token a thousand times larger than the rest:
        // the rows near it reach ~1e20 while the others stay near 1. Judged against the largest
        // value anywhere, the small rows' real dependencies read as rounding and the measured
        // radius fell to 1, a wrong locality claim; each row is judged at its own scale.
        Scenario s = loadScenario("builtin:sliding-window");
        s.precision = Precision::Float32;
        Matrix<Rational> x = TokenSpec::random(8, s.d(), 3).materialize<Rational>();
        x(7, 0) = Rational(1000);
        x(7, 1) = Rational(-800);
        s.tokens = TokenSpec::given(x);
        const PropertyReport r = check(s, "locality");
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.details["bound_radius"], json(2));
        QCOMPARE(r.details["measured_radius"], json(2));
        QCOMPARE(r.details["within_bound"], json(true));
        QCOMPARE(check(s, "locality", {{"radius", 1}}).verdict, Verdict::Fails);
    }

    void logitSymmetry() {
        const PropertyReport holds = checkPreset("positional-counterexample", "logit-symmetry");
        QCOMPARE(holds.verdict, Verdict::Holds);
        QCOMPARE(holds.maxDeviation.json(), json("0"));
        const PropertyReport random = checkPreset("equivariant-block", "logit-symmetry");
        QCOMPARE(random.verdict, Verdict::Fails);
        QVERIFY(QString::fromStdString(random.explanation).contains("Wq·Wkᵀ is not symmetric"));
        const PropertyReport alibi = checkPreset("alibi-causal", "logit-symmetry");
        QCOMPARE(alibi.verdict, Verdict::Fails);
        QVERIFY(QString::fromStdString(alibi.explanation).contains("causal ALiBi"));
    }

    void rowSums() {
        QCOMPARE(checkPreset("equivariant-block", "row-sums").verdict, Verdict::Holds);
        QCOMPARE(checkPreset("flash-tiling-float32", "row-sums").verdict, Verdict::Holds);
        QCOMPARE(checkPreset("sliding-window", "row-sums").verdict, Verdict::NotApplicable);
    }

    void allTrueMaskHoldsExactlyWhateverTheSpelling() {
        // window(4) and not(none) on five tokens allow every entry.
        const PropertyReport r = checkPreset("mask-as-wide-as-the-sequence", "all-true-mask");
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.maxDeviation.json(), json("0"));
        QCOMPARE(r.tolerance.json(), json("0"));
        QCOMPARE(r.difference.value().json()["kind"], json("none"));
        QCOMPARE(r.details["output_deviation"], json("0"));
        QCOMPARE(r.details["gradient_deviation"], json("0"));
        QCOMPARE(r.details["masks"].size(), std::size_t(2));
        for (const json& m : r.details["masks"])
            QCOMPARE(m["all_true"], json(true));
        QVERIFY(!r.witness);
    }

    void allTrueMaskHoldsInEveryPrecision_data() {
        QTest::addColumn<int>("precision");
        QTest::newRow("float64") << int(Precision::Float64);
        QTest::newRow("float32") << int(Precision::Float32);
    }
    void allTrueMaskHoldsInEveryPrecision() {
        QFETCH(int, precision);
        for (const char* preset : {"mask-as-wide-as-the-sequence", "equivariant-block",
                                   "rope-shift", "ssm-bidirectional"}) {
            Scenario s = loadScenario(std::string("builtin:") + preset);
            s.precision = Precision(precision);
            const PropertyReport r = check(s, "all-true-mask");
            QVERIFY2(r.verdict == Verdict::Holds, preset);
            QVERIFY(r.maxDeviation.toDouble() <= r.tolerance.toDouble());
            QVERIFY(r.difference.value().json()["kind"] ==
                    json(r.maxDeviation.toDouble() == 0 ? "none" : "rounding"));
        }
    }

    void allTrueMaskFailsWithHandComputedWitness() {
        // Tokens 1, 2, 3, identity weights, raw mixer: output s = x_s·Σ x_t² over allowed keys.
        // window(1) blocks query 0 → key 2: masked 1·(1 + 4) = 5, unmasked 1·(1 + 4 + 9) = 14.
        const PropertyReport r = checkPreset("mask-almost-all-true", "all-true-mask");
        QCOMPARE(r.verdict, Verdict::Fails);
        QCOMPARE(r.details["output_deviation"], json("9")); // row 2: 39 vs 42 differs by 3 only
        QCOMPARE(r.witness->json()["quantity"], json("output"));
        QCOMPARE(r.witness->json()["row"], json(0));
        QCOMPARE(r.witness->json()["column"], json(0));
        QCOMPARE(r.witness->json()["masked"], json("5"));
        QCOMPARE(r.witness->json()["unmasked"], json("14"));
        QVERIFY(r.details["gradient_deviation"] != json("0"));
        QCOMPARE(r.details["masks"][0]["blocked"], json(2));
        QCOMPARE(r.details["masks"][0]["first_blocked"], json({{"query", 0}, {"key", 2}}));
        QVERIFY(QString::fromStdString(r.explanation).contains("window(1) is not all-true"));
        QCOMPARE(r.difference.value().json()["kind"], json("beyond rounding"));
        // Radius 2 covers the three tokens: the same model then holds exactly.
        Scenario wide = loadScenario("builtin:mask-almost-all-true");
        wide.model.layers[0].mask = MaskSpec::window(2);
        const PropertyReport holds = check(wide, "all-true-mask");
        QCOMPARE(holds.verdict, Verdict::Holds);
        QCOMPARE(holds.maxDeviation.json(), json("0"));
    }

    void tilingExactAndRounding() {
        const PropertyReport exact = checkPreset("sliding-window", "tiling");
        QCOMPARE(exact.verdict, Verdict::Holds);
        QCOMPARE(exact.maxDeviation.json(), json("0"));
        QCOMPARE(exact.checked["tile_sizes"], json({1, 2, 4, 8, 3}));
        const PropertyReport f32 = checkPreset("flash-tiling-float32", "tiling");
        QCOMPARE(f32.verdict, Verdict::Holds);
        QVERIFY(f32.maxDeviation.toDouble() < f32.tolerance.toDouble());
        QVERIFY(QString::fromStdString(f32.toleranceRule).contains("float32"));
        QCOMPARE(f32.difference.value().json()["kind"],
                 json(f32.maxDeviation.toDouble() == 0 ? "none" : "rounding"));
        QCOMPARE(checkPreset("ssm-decay", "tiling").verdict, Verdict::NotApplicable);
    }

    void chunkwiseEqualsRecurrenceExactly() {
        for (const char* preset : {"ssm-decay", "ssm-causal-chunked", "ssm-bidirectional"}) {
            const PropertyReport r = checkPreset(preset, "chunkwise");
            QCOMPARE(r.verdict, Verdict::Holds);
            QCOMPARE(r.maxDeviation.json(), json("0"));
        }
    }

    void shiftInvariance() {
        QCOMPARE(checkPreset("rope-shift", "shift-invariance").verdict, Verdict::Holds);
        QCOMPARE(checkPreset("alibi-causal", "shift-invariance").verdict, Verdict::Holds);
        const PropertyReport sin = checkPreset("sinusoidal-positions", "shift-invariance");
        QCOMPARE(sin.verdict, Verdict::Fails);
        QVERIFY(QString::fromStdString(sin.explanation).contains("sinusoidal"));
        // Polynomial positions, exactly: scores at offset 1 differ from offset 0.
        const PropertyReport poly =
            checkPreset("positional-counterexample", "shift-invariance", {{"offset", 1}});
        QCOMPARE(poly.verdict, Verdict::Fails);
        QCOMPARE(poly.witness->json()["offset"], json(1));
    }

    void badParametersAreRefused() {
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 checkPreset("sliding-window", "locality", {{"radius", -1}}));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 checkPreset("sliding-window", "locality", {{"radios", 1}}));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 runChecks(loadScenario("builtin:sliding-window"), {{"nope"}}, 0));
    }

    void parseCheckArgumentReadsParameters() {
        const CheckSpec c = parseCheckArgument("shift-invariance:offset=[1,2],x=abc");
        QCOMPARE(c.name, std::string("shift-invariance"));
        QCOMPARE(c.params["offset"], json({1, 2}));
        QCOMPARE(c.params["x"], json("abc"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseCheckArgument("locality:radius"));
    }

    void cancellationStopsACheck() {
        const Scenario s = loadScenario("builtin:window-three-layers");
        const PropertyCheck* c = findPropertyCheck("locality");
        QVERIFY_THROWS_EXCEPTION(CancelledError,
                                 c->run({s, json::object(), 0, [] { return true; }, {}}));
    }
};

QTEST_GUILESS_MAIN(TestChecks)
#include "test_checks.moc"
