// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-cli check: the verdict of every property each preset lists, exit statuses 0/1/2, the
// JSON shape of cli.md, and --help listing every property.
#include "cli_runner.h"
#include "preset_verdicts.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCliCheck : public QObject {
    Q_OBJECT
private slots:
    void everyPresetGivesTheRightVerdicts_data() { addPresetVerdictRows(); }
    void everyPresetGivesTheRightVerdicts() {
        QFETCH(QString, preset);
        QFETCH(QString, expected);
        const CliResult r = runCli({"check", "builtin:" + preset, "--json"});
        const json j = json::parse(r.out.toStdString());
        const QStringList pairs = expected.split(',');
        QCOMPARE(j["properties"].size(), std::size_t(pairs.size()));
        bool anyFails = false;
        for (int i = 0; i < pairs.size(); ++i) {
            const QStringList kv = pairs[i].split('=');
            const json& p = j["properties"][std::size_t(i)];
            QCOMPARE(QString::fromStdString(p["name"].get<std::string>()), kv[0]);
            QVERIFY2(QString::fromStdString(p["verdict"].get<std::string>()) == kv[1],
                     qPrintable(kv[0] + " was " + QString::fromStdString(p.dump())));
            anyFails = anyFails || kv[1] == "fails";
            for (const char* key : {"holds", "exact", "max_deviation", "tolerance", "checked",
                                    "witness", "explanation"})
                QVERIFY2(p.contains(key), key);
        }
        QCOMPARE(r.exitCode, anyFails ? 1 : 0);
    }

    void exactCounterexampleJsonMatchesTheContract() {
        const CliResult r = runCli({"check", "builtin:positional-counterexample", "--property",
                                    "permutation-equivariance", "--json"});
        QCOMPARE(r.exitCode, 1);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["precision"], json("exact"));
        QCOMPARE(j["backend"], json("cpu"));
        const json& p = j["properties"][0];
        QCOMPARE(p["holds"], json(false));
        QCOMPARE(p["exact"], json(true));
        QCOMPARE(p["max_deviation"], json("5/9"));
        QCOMPARE(p["tolerance"], json("0"));
        QCOMPARE(p["checked"]["planned"], json(2));
        QCOMPARE(p["checked"]["permutations"], json(1)); // the first σ fails: checking stops
        QCOMPARE(p["checked"]["exhaustive"], json(true));
        QCOMPARE(p["witness"]["model_then_transformed"], json("14/9"));
    }

    void propertyParametersAndExitStatuses() {
        QCOMPARE(
            runCli({"check", "builtin:sliding-window", "--property", "locality:radius=2"}).exitCode,
            0);
        QCOMPARE(
            runCli({"check", "builtin:sliding-window", "--property", "locality:radius=1"}).exitCode,
            1);
        const CliResult unknown = runCli({"check", "builtin:sliding-window", "--property", "nope"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("unknown property 'nope'"));
        const CliResult badParam =
            runCli({"check", "builtin:sliding-window", "--property", "locality:radius=-3"});
        QCOMPARE(badParam.exitCode, 2);
        QVERIFY(badParam.err.contains("radius: must be an integer"));
        QCOMPARE(runCli({"check", "/nonexistent.json"}).exitCode, 2);
        const CliResult sampled =
            runCli({"check", "builtin:window-three-layers", "--property",
                    "permutation-equivariance", "--samples", "3", "--seed", "7", "--json"});
        const json j = json::parse(sampled.out.toStdString());
        QCOMPARE(j["properties"][0]["checked"]["planned"], json(3));
        QCOMPARE(j["properties"][0]["checked"]["seed"], json(7));
    }

    void batchPropertiesLabelRoundingInJson() {
        const CliResult r = runCli({"check", "builtin:parallel-float32", "--property",
                                    "tensor-parallel:parts=4", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json p = json::parse(r.out.toStdString())["properties"][0];
        QCOMPARE(p["holds"], json(true));
        QCOMPARE(p["exact"], json(false));
        QCOMPARE(p["difference"]["kind"], json("rounding"));
        QVERIFY(p["difference"]["ulps"].get<long>() >= 1);
        QCOMPARE(p["checked"]["parts"], json(4));
        QVERIFY(p["explanation"].get<std::string>().find("rounding, not an error") !=
                std::string::npos);
        const CliResult bad =
            runCli({"check", "builtin:parallel-float32", "--property", "tensor-parallel:parts=0"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("parts: must be an integer"));
    }

    void allTrueMaskFailureJson() {
        const CliResult r = runCli(
            {"check", "builtin:mask-almost-all-true", "--property", "all-true-mask", "--json"});
        QCOMPARE(r.exitCode, 1);
        const json p = json::parse(r.out.toStdString())["properties"][0];
        QCOMPARE(p["holds"], json(false));
        QCOMPARE(p["tolerance"], json("0"));
        QCOMPARE(p["witness"]["masked"], json("5"));
        QCOMPARE(p["witness"]["unmasked"], json("14"));
        QCOMPARE(p["difference"]["kind"], json("beyond rounding"));
    }

    void helpListsEveryProperty() {
        const CliResult r = runCli({"check", "--help"});
        QCOMPARE(r.exitCode, 0);
        for (const char* name : {"permutation-equivariance", "permutation-invariance", "locality",
                                 "causality", "logit-symmetry", "row-sums", "all-true-mask",
                                 "tiling", "chunkwise", "shift-invariance", "batch-invariance",
                                 "tensor-parallel", "data-parallel", "gradient", "kv-cache"})
            QVERIFY2(r.out.contains(name), name);
        QVERIFY(r.out.contains("queries [1, ⌈n/2⌉]"));
        QVERIFY(r.out.contains("alignment [bottom-right] or top-left"));
        QVERIFY(r.out.contains("radius [the bound the masks imply]"));
        QVERIFY(r.out.contains("parts [2]"));
        // In cli.md's order: all-true-mask after row-sums, the batch properties before gradient.
        QVERIFY(r.out.indexOf("row-sums") < r.out.indexOf("all-true-mask"));
        QVERIFY(r.out.indexOf("all-true-mask") < r.out.indexOf("tiling"));
        QVERIFY(r.out.indexOf("shift-invariance") < r.out.indexOf("batch-invariance"));
        QVERIFY(r.out.indexOf("batch-invariance") < r.out.indexOf("tensor-parallel"));
        QVERIFY(r.out.indexOf("tensor-parallel") < r.out.indexOf("data-parallel"));
        QVERIFY(r.out.indexOf("data-parallel") < r.out.indexOf("\n  gradient"));
        QVERIFY(r.out.indexOf("\n  gradient") < r.out.indexOf("\n  kv-cache"));
    }

    void kvCacheParameterSyntax() {
        // A list and a word in one --property: top-left decoding is PyTorch's is_causal bug.
        const CliResult r = runCli({"check", "builtin:causal-model", "--property",
                                    "kv-cache:queries=[1,3],alignment=top-left", "--json"});
        QCOMPARE(r.exitCode, 1);
        const json p = json::parse(r.out.toStdString())["properties"][0];
        QCOMPARE(p["name"], json("kv-cache"));
        QCOMPARE(p["verdict"], json("fails"));
        QCOMPARE(p["checked"]["queries"], json({1, 3}));
        QCOMPARE(p["checked"]["alignment"], json("top-left"));
        QCOMPARE(p["witness"]["alignment"], json("top-left"));
        QCOMPARE(p["shrunk_witness"]["queries"], json(1));
        QCOMPARE(p["shrunk_witness"]["n"], json(2));
        // The defaults: bottom-right, m = 1 and ⌈6/2⌉ = 3.
        const CliResult holds = runCli({"check", "builtin:causal-model", "--property", "kv-cache"});
        QCOMPARE(holds.exitCode, 0);
        QVERIFY2(holds.out.contains("HOLDS kv-cache"), qPrintable(holds.out));
        QVERIFY(holds.out.contains("\"alignment\":\"bottom-right\",\"queries\":[1,3]"));
        const CliResult bad =
            runCli({"check", "builtin:causal-model", "--property", "kv-cache:queries=7"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("property kv-cache: queries: m = 7 is outside 1..n = 6"),
                 qPrintable(bad.err));
        const CliResult word =
            runCli({"check", "builtin:causal-model", "--property", "kv-cache:alignment=diagonal"});
        QCOMPARE(word.exitCode, 2);
        QVERIFY2(word.err.contains("alignment: \"diagonal\" is not an alignment"),
                 qPrintable(word.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCheck)
#include "test_cli_check.moc"
