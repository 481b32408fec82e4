// SPDX-License-Identifier: GPL-3.0-or-later
// The kv-cache property (properties.md §2.15): the decode step of §1.7 reproduces the last m rows
// of the full pass on causal presets (exact, float64, float32), fails aligned top-left with a
// witness that is the decode step's and the full pass's own numbers, fails on two bidirectional
// layers and holds on one, does not apply to ssm or one token, and refuses bad parameters naming
// them.
#include "core/checks/check_registry.h"
#include "core/io/scenario_reader.h"
#include "core/model/decode.h"
#include "core/test_support.h"

#include <QtTest>

using namespace attnlab;
using nlohmann::json;

namespace {

PropertyReport kvCache(const Scenario& s, json params = json::object(),
                       std::function<bool()> cancelled = {}) {
    return findPropertyCheck("kv-cache")
        ->run({s, std::move(params), 0, std::move(cancelled), nullptr});
}

QString explanationOf(const PropertyReport& r) {
    return QString::fromStdString(r.explanation);
}

// causal-model (two heads of softmax with an output projection and a residual, float64) with
// `layers` copies of its layer under the bidirectional mask `all`.
Scenario bidirectional(int layers) {
    Scenario s = loadScenario("builtin:causal-model");
    s.model.layers.front().mask = MaskSpec::all();
    s.model.layers.resize(std::size_t(layers), s.model.layers.front());
    return s;
}

} // namespace

class TestKvCacheCheck : public QObject {
    Q_OBJECT
private slots:
    void registeredAfterGradientWithItsParameters() {
        QCOMPARE(propertySection("kv-cache"), std::string("2.15"));
        const std::string help = parametersHelp(*findPropertyCheck("kv-cache"));
        QVERIFY2(help.find("queries [1, ⌈n/2⌉]") != std::string::npos, help.c_str());
        QVERIFY2(help.find("alignment [bottom-right] or top-left") != std::string::npos,
                 help.c_str());
    }

    void holdsOnCausalPresets_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("exact");
        QTest::newRow("exact, alibi") << "alibi-causal" << true;
        QTest::newRow("float64") << "causal-model" << false;
        QTest::newRow("float32") << "flash-tiling-float32" << false;
    }
    void holdsOnCausalPresets() {
        QFETCH(QString, preset);
        QFETCH(bool, exact);
        const Scenario s = loadScenario("builtin:" + preset.toStdString());
        const PropertyReport r = kvCache(s);
        QCOMPARE(r.verdict, Verdict::Holds);
        QCOMPARE(r.exact, exact);
        if (exact) QCOMPARE(r.maxDeviation.json(), json("0"));
        QCOMPARE(r.checked["queries"], json({1, (s.n() + 1) / 2}));
        QCOMPARE(r.checked["alignment"], json("bottom-right"));
        QVERIFY(!r.witness && !r.shrunkWitness);
        QVERIFY2(explanationOf(r).startsWith("every layer's mask is causal"),
                 r.explanation.c_str());
        // Every m, as a list: m = n is the full pass itself.
        json all = json::array();
        for (int m = 1; m <= s.n(); ++m)
            all.push_back(m);
        QCOMPARE(kvCache(s, {{"queries", all}}).verdict, Verdict::Holds);
    }

    void topLeftFailsWithTheDecodeStepsOwnNumbers() {
        const Scenario s = loadScenario("builtin:alibi-causal"); // exact, n = 5, causal
        const PropertyReport r = kvCache(s, {{"queries", json({1, 3})}, {"alignment", "top-left"}});
        QCOMPARE(r.verdict, Verdict::Fails);
        QVERIFY2(explanationOf(r).contains("aligned at the top-left corner: query i of the decode "
                                           "step sees keys 0..i instead of 0..c+i"),
                 r.explanation.c_str());
        const json w = r.witness->json();
        QCOMPARE(w["alignment"], json("top-left"));
        const int m = w["queries"].get<int>(), row = w["decode_row"].get<int>();
        QCOMPARE(w["row"].get<int>(), s.n() - m + row); // the token, on the full pass's maps
        QCOMPARE(r.witness->cell()->row, s.n() - m + row);
        // Both values are what decode() and forward() give at that entry.
        const Model<Rational> model(s.model, s.d());
        const Matrix<Rational> x = s.tokens.materialize<Rational>();
        DecodeStep step;
        step.queries = m;
        step.alignment = CausalAlignment::TopLeft;
        const Trace<Rational> decoded = decode(model, x, step), full = model.forward(x);
        const int column = w["column"].get<int>();
        const bool output = w["map"] == "output";
        QCOMPARE(r.witness->cell()->map,
                 output ? WitnessCell::Map::Output : WitnessCell::Map::Weights);
        const Matrix<Rational>& d =
            output ? decoded.output
                   : decoded.layers[0].heads[std::size_t(w.value("head", 0))].weights;
        const Matrix<Rational>& f =
            output ? full.output : full.layers[0].heads[std::size_t(w.value("head", 0))].weights;
        QCOMPARE(w["decode"], json(rationalText(d(row, column))));
        QCOMPARE(w["full_pass"], json(rationalText(f(s.n() - m + row, column))));
        QVERIFY(w["decode"] != w["full_pass"]);
        QCOMPARE(r.details["failing_queries"], json({1, 3}));
        // Shrunk: m = 1 on two tokens (one cached, one new), the first differing entry.
        const json shrunk = r.shrunkWitness->json();
        QCOMPARE(shrunk["queries"], json(1));
        QCOMPARE(shrunk["n"], json(2));
        QCOMPARE(shrunk["tokens"].size(), std::size_t(2));
        QCOMPARE(shrunk["row"], json(1));
        QCOMPARE(shrunk["decode_row"], json(0));
    }

    void shrinkingFindsASmallerQueryCountThanTheOnesChecked() {
        const Scenario s = loadScenario("builtin:causal-model"); // n = 6
        const PropertyReport r = kvCache(s, {{"queries", 4}, {"alignment", "top-left"}});
        QCOMPARE(r.verdict, Verdict::Fails);
        QCOMPARE(r.witness->json()["queries"], json(4));
        QCOMPARE(r.shrunkWitness->json()["queries"], json(1));
    }

    void twoBidirectionalLayersFailOneHolds() {
        const PropertyReport one = kvCache(bidirectional(1));
        QCOMPARE(one.verdict, Verdict::Holds);
        QVERIFY2(explanationOf(one).startsWith("a single layer"), one.explanation.c_str());
        // Aligned top-left, an all mask's rows are the same rows: it holds too.
        QCOMPARE(kvCache(bidirectional(1), {{"alignment", "top-left"}}).verdict, Verdict::Holds);

        const PropertyReport two = kvCache(bidirectional(2));
        QCOMPARE(two.verdict, Verdict::Fails);
        QVERIFY2(explanationOf(two).contains("the cache was filled by a prefill that never saw the "
                                             "later tokens: layer ≥ 1 keys of the cached tokens "
                                             "differ"),
                 two.explanation.c_str());
        QVERIFY(two.shrunkWitness);
        QCOMPARE(two.shrunkWitness->json()["n"], json(2));
    }

    void notApplicable() {
        const PropertyReport ssm = kvCache(loadScenario("builtin:ssm-bidirectional"));
        QCOMPARE(ssm.verdict, Verdict::NotApplicable);
        QVERIFY2(explanationOf(ssm).contains("ssm"), ssm.explanation.c_str());
        Scenario single = loadScenario("builtin:alibi-causal");
        single.tokens = TokenSpec::random(1, single.d(), 3);
        const PropertyReport one = kvCache(single);
        QCOMPARE(one.verdict, Verdict::NotApplicable);
        QVERIFY2(explanationOf(one).contains("single token"), one.explanation.c_str());
    }

    void badParametersNameThemselves_data() {
        QTest::addColumn<QString>("params"); // JSON
        QTest::addColumn<QString>("expected");
        QTest::newRow("m = 0") << "{\"queries\": 0}"
                               << "queries: m = 0 is outside 1..n = 5 (the decode step reads the "
                                  "last m of n tokens)";
        QTest::newRow("m > n") << "{\"queries\": [1, 6]}"
                               << "queries: m = 6 is outside 1..n = 5 (the decode step reads the "
                                  "last m of n tokens)";
        QTest::newRow("not an integer") << "{\"queries\": \"two\"}"
                                        << "queries: must be an integer or a list of integers, "
                                           "got \"two\"";
        QTest::newRow("alignment") << "{\"alignment\": \"diagonal\"}"
                                   << "alignment: \"diagonal\" is not an alignment: bottom-right "
                                      "or top-left";
        QTest::newRow("alignment number") << "{\"alignment\": 1}"
                                          << "alignment: 1 is not an alignment: bottom-right or "
                                             "top-left";
        QTest::newRow("unknown") << "{\"m\": 1}"
                                 << "unknown parameter 'm'";
    }
    void badParametersNameThemselves() {
        QFETCH(QString, params);
        QFETCH(QString, expected);
        const Scenario s = loadScenario("builtin:alibi-causal");
        QCOMPARE(test::inputErrorOf([&] { kvCache(s, json::parse(params.toStdString())); }),
                 expected);
        // Through the registry, as check --property reports it.
        CheckSpec spec{"kv-cache", json::parse(params.toStdString())};
        QCOMPARE(test::inputErrorOf([&] { runChecks(s, {spec}, 0); }),
                 "property kv-cache: " + expected);
    }

    void cancelled() {
        const Scenario s = loadScenario("builtin:causal-model");
        QVERIFY_THROWS_EXCEPTION(CancelledError, kvCache(s, {}, [] { return true; }));
    }
};

QTEST_APPLESS_MAIN(TestKvCacheCheck)
#include "test_kv_cache_check.moc"
