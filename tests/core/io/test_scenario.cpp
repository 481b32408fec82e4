// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario files: every preset loads, save → load round-trips, and each class of bad input is
// refused with a message naming the JSON path and the rule.
#include "core/base/error.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"
#include "core/model/model.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace attnlab;

namespace {
// A valid minimal scenario with one field replaced by `patch` (a JSON object merged on top).
std::string scenarioWith(const std::string& patch) {
    nlohmann::json doc = {{"format", "attnlab-scenario"},
                          {"version", 1},
                          {"precision", "exact"},
                          {"tokens", {{0, 0, 0}, {1, 0, 0}}},
                          {"layers", {{{"mixer", {{"kind", "softmax_like"}}}}}}};
    nlohmann::json changes = nlohmann::json::parse(patch);
    if (changes.contains("layers")) // each patched layer starts from the base layer
        for (auto& layer : changes["layers"]) {
            nlohmann::json base = doc["layers"][0];
            base.merge_patch(layer);
            layer = base;
        }
    doc.merge_patch(changes);
    std::string text = doc.dump();
    // "BIG" stands for a literal that overflows a double, which the patch itself cannot hold.
    if (auto at = text.find("\"BIG\""); at != std::string::npos) text.replace(at, 5, "1e999");
    return text;
}
} // namespace

class TestScenario : public QObject {
    Q_OBJECT
private slots:
    void everyPresetLoadsAndRoundTrips_data() {
        QTest::addColumn<QString>("name");
        for (const auto& p : builtinPresets())
            QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }
    void everyPresetLoadsAndRoundTrips() {
        QFETCH(QString, name);
        const Scenario s = loadScenario("builtin:" + name.toStdString());
        QVERIFY(!s.name.empty());
        QVERIFY(!s.notes.empty());
        const Scenario again = parseScenario(scenarioText(s));
        QVERIFY(again == s);
        QCOMPARE(scenarioText(again), scenarioText(s));
    }

    void roundTripThroughFileKeepsExactValues() {
        Scenario s = parseScenario(scenarioWith(R"j({"tokens": [["1/3", 0.1, 2], [-7, "22/7", 0]],
            "permutation": {"cycles": "(0 1)"}, "positional": {"kind": "alibi", "slopes": ["1/3"]},
            "layers": [{"wq": {"random": {"seed": 4, "scale": "1/2"}}, "mask": {"or": [{"kind": "causal"},
            {"not": {"kind": "window", "radius": 0}}]}, "mixer": {"kind": "raw", "tile": 1}}],
            "checks": ["causality", {"name": "locality", "radius": 1}],
            "batch": [[[1, 2, 3]]]})j"));
        QCOMPARE(rationalText(s.tokens.values(0, 0)), std::string("1/3"));
        QCOMPARE(rationalText(s.tokens.values(0, 1)), std::string("1/10"));
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "s.json";
        saveScenarioFile(s, path);
        QVERIFY(!std::filesystem::exists(path.string() + ".tmp"));
        const Scenario loaded = loadScenarioFile(path);
        QVERIFY(loaded == s);
        s.tokens.values(0, 0) = 2;
        QVERIFY(!(loaded == s));
    }

    void realBlocksRoundTripAndRun() {
        // Every part of a real block in one file: norms, biases, grouped heads, a gated MLP,
        // RoPE in the half style with partial rotation and llama3 scaling, a final norm.
        const Scenario s = parseScenario(scenarioWith(R"j({"precision": "float64",
            "tokens": {"random": {"n": 5, "d": 4, "seed": 3}},
            "positional": {"kind": "rope", "style": "half", "rotary_dim": 2, "scaling":
              {"type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
               "original_max_position_embeddings": 16}},
            "layers": [{"wq": {"random": {"seed": 1}}, "wk": {"random": {"seed": 2}},
              "wv": {"random": {"seed": 3}}, "wo": {"random": {"seed": 4}}, "heads": 2,
              "kv_heads": 1, "bq": [0.5, 0, 0, 1], "bk": [1, 2], "bo": [0, 0, 0, "1/4"],
              "mixer": {"kind": "softmax"}, "mask": {"kind": "causal"}, "residual": true,
              "attention_norm": {"kind": "rmsnorm", "weight": [1, 2, 1, 1], "eps": 1e-6},
              "mlp_norm": {"kind": "layernorm", "weight": [1, 1, 1, 1], "bias": [0, 0, 1, 0]},
              "mlp": {"activation": "silu", "up": [[1, 0], [0, 1], [1, 1], [0, 0]],
                      "gate": [[0, 1], [1, 0], [1, 1], [1, 0]], "down": [[1, 0, 0, 1], [0, 1, 1, 0]],
                      "down_bias": [0, 0, 0, 1]}}],
            "final_norm": {"kind": "layernorm"}})j"));
        const LayerSpec& l = s.model.layers[0];
        QCOMPARE(l.keyValueHeads(), 1);
        QVERIFY(l.mlp && l.mlp->gate && l.attentionNorm && l.mlpNorm && s.model.finalNorm);
        QCOMPARE(s.model.positional.scaling.kind, RopeScaling::Kind::Llama3);
        const Scenario again = parseScenario(scenarioText(s));
        QVERIFY(again == s);
        QCOMPARE(scenarioText(again), scenarioText(s));
        const Trace<double> t =
            Model<double>(s.model, s.d()).forward(s.tokens.materialize<double>());
        QCOMPARE(t.output.rows(), 5);
        QVERIFY(t.output.allFinite());
        // The final layernorm leaves every row with mean 0 and variance 1 (up to eps).
        QVERIFY(t.output.rowwise().mean().cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY((t.output.array().square().rowwise().mean() - 1).abs().maxCoeff() < 1e-4);
    }

    void rationalJsonPrefersPlainNumbers() {
        QCOMPARE(rationalJson(Rational(3)).dump(), std::string("3"));
        QCOMPARE(rationalJson(Rational(1, 2)).dump(), std::string("0.5"));
        QCOMPARE(rationalJson(Rational(1, 10)).dump(), std::string("0.1"));
        QCOMPARE(rationalJson(Rational(1, 3)).dump(), std::string("\"1/3\""));
    }

    void badInputIsRefusedWithItsPath_data() {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown key") << R"j({"layers": [{"mixr": {}}]})j"
                                     << "layers[0].mixr: unknown key";
        QTest::newRow("unknown top key") << R"j({"tokenz": 1})j"
                                         << "tokenz: unknown key";
        QTest::newRow("ragged tokens") << R"j({"tokens": [[0, 0, 0], [1, 0]]})j"
                                       << "tokens[1]: row has 2 entries, expected 3";
        QTest::newRow("not bijective") << R"j({"permutation": [1, 1]})j"
                                       << "permutation: 1 appears twice (not a bijection of 0..1)";
        QTest::newRow("wrong length permutation") << R"j({"permutation": [0]})j"
                                                  << "permutation: has 1 entries, expected n = 2";
        QTest::newRow("bad cycles") << R"j({"permutation": {"cycles": "(0 5)"}})j"
                                    << "outside 0..1";
        QTest::newRow("negative radius")
            << R"j({"layers": [{"mask": {"kind": "window", "radius": -1}}]})j"
            << "layers[0].mask.radius: must be an integer in 0..";
        QTest::newRow("exact softmax")
            << R"j({"layers": [{"mixer": {"kind": "softmax"}}]})j"
            << "precision exact: mixer softmax needs exp, use softmax_like, raw or ssm";
        QTest::newRow("exact rope") << R"j({"positional": {"kind": "rope"}})j"
                                    << "positional rope needs sin and cos";
        QTest::newRow("weights shape") << R"j({"layers": [{"wq": [[1, 0], [0, 1]]}]})j"
                                       << "layers[0].wq: matrix is 2 x 2, expected 3 x 2";
        QTest::newRow("heads") << R"j({"layers": [{"heads": 2}]})j"
                               << "layers[0].heads: 2 heads do not divide";
        QTest::newRow("residual width")
            << R"j({"layers": [{"wv": [[1], [0], [0]], "residual": true}]})j"
            << "layers[0].residual: needs output width 3";
        QTest::newRow("blocks sum")
            << R"j({"layers": [{"mask": {"kind": "blocks", "sizes": [1, 2]}}]})j"
            << "layers[0].mask: sizes: blocks add up to 3, expected n = 2";
        QTest::newRow("custom size")
            << R"j({"layers": [{"mask": {"kind": "custom", "cells": [[1]]}}]})j"
            << "layers[0].mask: cells: custom mask is 1 x 1, expected 2 x 2";
        QTest::newRow("infinite") << R"j({"tokens": [["BIG", 0, 0], [1, 0, 0]]})j"
                                  << "not valid JSON";
        // A value the precision cannot hold is refused where it is given, not computed with
        // (an infinity in float mode, then NaN in every map); exact mode holds it.
        QTest::newRow("beyond float64")
            << R"j({"precision": "float64", "layers": [{"mixer": {"kind": "softmax"}}],
                    "tokens": [[0, 0, 0], [1, 0, "1e309"]]})j"
            << "tokens: [1][2]: about 1e309 is beyond the range of float64 (largest 1.8e+308)";
        QTest::newRow("beyond float32")
            << R"j({"precision": "float32", "layers": [{"mixer": {"kind": "softmax"},
                    "wv": [[1, 0, 0], [0, 1e39, 0], [0, 0, 1]]}]})j"
            << "layers[0].wv: [1][1]: 1e+39 is beyond the range of float32 (largest 3.4e+38)";
        QTest::newRow("batch beyond float64")
            << R"j({"precision": "float64", "layers": [{"mixer": {"kind": "softmax"}}],
                    "batch": [[[1, "-2e400", 3]]]})j"
            << "batch[0]: [0][1]: about -2e400 is beyond the range of float64";
        QTest::newRow("slope beyond float32")
            << R"j({"precision": "float32", "layers": [{"mixer": {"kind": "softmax"}}],
                    "positional": {"kind": "alibi", "slopes": [1e39]}})j"
            << "positional.slopes[0]: 1e+39 is beyond the range of float32";
        QTest::newRow("bad string number") << R"j({"tokens": [["x", 0, 0], [1, 0, 0]]})j"
                                           << "tokens[0][0]: 'x' is not a number";
        QTest::newRow("zero denominator") << R"j({"tokens": [["1/0", 0, 0], [1, 0, 0]]})j"
                                          << "tokens[0][0]: '1/0' divides by zero";
        QTest::newRow("oversized")
            << R"j({"tokens": {"random": {"n": 65536, "d": 16384, "seed": 1}}})j"
            << "is too large";
        QTest::newRow("polynomial width")
            << R"j({"tokens": [[0, 0], [1, 0]], "positional": {"kind": "polynomial"}})j"
            << "needs d = 3, got d = 2";
        QTest::newRow("version") << R"j({"version": 2})j"
                                 << "version: version 2 is not supported";
        QTest::newRow("format") << R"j({"format": "other"})j"
                                << "format: must be \"attnlab-scenario\"";
        QTest::newRow("ssm with mask")
            << R"j({"layers": [{"mixer": {"kind": "ssm"}, "mask": {"kind": "causal"}}]})j"
            << "layers[0].mask: mixer ssm takes no mask other than all";
        QTest::newRow("ssm scale") << R"j({"layers": [{"mixer": {"kind": "ssm", "scale": 2}}]})j"
                                   << "layers[0].mixer.scale: only applies to";
        QTest::newRow("batch width") << R"j({"batch": [[[1, 2]]]})j"
                                     << "batch[0]: has width 2, expected d = 3";
        QTest::newRow("batch not a list") << R"j({"batch": {"x": [[1, 2, 3]]}})j"
                                          << "batch: must be an array";
        QTest::newRow("batch sequence empty") << R"j({"batch": [[]]})j"
                                              << "batch[0]: must be a non-empty array of rows";
        QTest::newRow("batch row width") << R"j({"batch": [[[1, 2, 3], [1, 2]]]})j"
                                         << "batch[0][1]: row has 2 entries, expected 3";
        QTest::newRow("batch length vs custom mask")
            << R"j({"layers": [{"mask": {"kind": "custom", "cells": [[1, 0], [1, 1]]}}],
                    "batch": [[[1, 2, 3]]]})j"
            << "batch[0]: has 1 tokens, but layers[0].mask: cells: custom mask is 2 x 2, "
               "expected 1 x 1";
        QTest::newRow("kv heads do not divide")
            << R"j({"precision": "float64", "layers": [{"heads": 3, "kv_heads": 2,
                    "wq": {"random": {"seed": 1}}}], "tokens": [[0, 0, 0], [1, 0, 0]]})j"
            << "layers[0].kv_heads: 2 key/value heads do not divide 3 heads";
        QTest::newRow("bias width") << R"j({"layers": [{"bq": [1, 2]}]})j"
                                    << "layers[0].bq: matrix is 1 x 2, expected 1 x 3";
        QTest::newRow("exact layernorm")
            << R"j({"layers": [{"attention_norm": {"kind": "layernorm"}}]})j"
            << "precision exact: layernorm needs a square root";
        QTest::newRow("exact gelu")
            << R"j({"layers": [{"mlp": {"activation": "gelu", "up": "identity",
                    "down": "identity"}}]})j"
            << "precision exact: activation gelu needs erf, tanh or exp";
        QTest::newRow("unknown activation")
            << R"j({"layers": [{"mlp": {"activation": "swish", "up": "identity",
                    "down": "identity"}}]})j"
            << "layers[0].mlp.activation: unknown activation 'swish'";
        QTest::newRow("rmsnorm bias")
            << R"j({"layers": [{"mlp_norm": {"kind": "rmsnorm", "bias": [0, 0, 0]}}]})j"
            << "layers[0].mlp_norm.bias: rmsnorm has no bias";
        QTest::newRow("rope style") << R"j({"positional": {"kind": "rope", "style": "spiral"}})j"
                                    << "positional.style: must be \"interleaved\" or \"half\"";
        QTest::newRow("rope scaling")
            << R"j({"positional": {"kind": "rope", "scaling": {"type": "yarn", "factor": 2}}})j"
            << "positional.scaling.type: unknown RoPE scaling 'yarn' (linear, llama3)";
        QTest::newRow("rotary dim wider than a head")
            << R"j({"precision": "float64", "layers": [{"mixer": {"kind": "softmax"}}],
                    "positional": {"kind": "rope", "rotary_dim": 4}})j"
            << "positional.rotary_dim: 4 is wider than a head (3) in layers[0]";
        QTest::newRow("odd rotary dim") << R"j({"positional": {"kind": "rope", "rotary_dim": 3}})j"
                                        << "positional.rotary_dim: must be even";
        QTest::newRow("empty layers") << R"j({"layers": []})j"
                                      << "layers: must be a non-empty array";
        QTest::newRow("unknown mask") << R"j({"layers": [{"mask": {"kind": "diagonal"}}]})j"
                                      << "layers[0].mask.kind: unknown mask kind 'diagonal'";
    }
    void badInputIsRefusedWithItsPath() {
        QFETCH(QString, patch);
        QFETCH(QString, message);
        try {
            (void)parseScenario(scenarioWith(patch.toStdString()));
            QFAIL("the scenario was accepted");
        } catch (const InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(message), qPrintable("message was: " + what));
        }
    }

    void malformedJsonIsRefused() {
        QVERIFY_THROWS_EXCEPTION(InputError, parseScenario("{\"format\": "));
        QVERIFY_THROWS_EXCEPTION(InputError, parseScenario("[1, 2]"));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 parseScenario(R"j({"format": "attnlab-scenario", "version": 1,
            "tokens": [[NaN]], "layers": [{}]})j"));
    }

    // Found by review for fuzz_mask: the readers recurse once per level (and each level copies
    // its JSON path), so a mask nested 50,000 deep overflowed the stack instead of being refused.
    void deepNestingIsRefused_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("open");
        QTest::addColumn<QString>("inner");
        QTest::addColumn<QString>("close");
        QTest::newRow("mask") << "\"layers\": [{\"mask\": "
                              << "{\"not\": "
                              << "{\"kind\": \"causal\"}"
                              << "}";
        QTest::newRow("check parameter")
            << "\"layers\": [{}], \"checks\": [{\"name\": \"row-sums\", \"x\": "
            << "["
            << "1"
            << "]";
    }
    void deepNestingIsRefused() {
        QFETCH(QString, field);
        QFETCH(QString, open);
        QFETCH(QString, inner);
        QFETCH(QString, close);
        const QString text = "{\"format\": \"attnlab-scenario\", \"version\": 1, "
                             "\"tokens\": [[1], [2]], " +
                             field + open.repeated(50000) + inner + close.repeated(50000) + "}]}";
        try {
            (void)parseScenario(text.toStdString());
            QFAIL("the scenario was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("nested deeper than 64 levels"), e.what());
        }
        QString shallow = text; // 20 levels are read (and judged on their content)
        shallow.replace(open.repeated(50000), open.repeated(20));
        shallow.replace(close.repeated(50000), close.repeated(20));
        try {
            (void)parseScenario(shallow.toStdString());
        } catch (const InputError& e) {
            QVERIFY2(!QString(e.what()).contains("nested"), e.what());
        }
    }

    void missingFileAndUnknownPresetNameThemselves() {
        try {
            (void)loadScenario("/nonexistent/x.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY(QString(e.what()).contains("/nonexistent/x.json: cannot open"));
        }
        try {
            (void)loadScenario("builtin:nope");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY(QString(e.what()).contains("builtin:nope: no such built-in scenario"));
        }
    }

    void generatorsMaterialize() {
        const Scenario s = parseScenario(
            scenarioWith(R"j({"precision": "float64", "tokens": {"arange": {"n": 4, "d": 3}}})j"));
        const auto x = s.tokens.materialize<double>();
        QCOMPARE(x.rows(), 4);
        QCOMPARE(x(3, 2), 3.0);
        const Scenario h = parseScenario(scenarioWith(R"j({"tokens": {"one_hot": {"n": 3}}})j"));
        QVERIFY(h.tokens.materialize<Rational>() == Matrix<Rational>::Identity(3, 3));
        const Scenario r =
            parseScenario(scenarioWith(R"j({"tokens": {"random": {"n": 3, "d": 3, "seed": 9}}})j"));
        const auto q = r.tokens.materialize<Rational>();
        for (Eigen::Index i = 0; i < q.size(); ++i)
            QVERIFY(q(i) >= -3 && q(i) <= 3 && q(i).get_den() == 1);
    }
};

QTEST_GUILESS_MAIN(TestScenario)
#include "test_scenario.moc"
