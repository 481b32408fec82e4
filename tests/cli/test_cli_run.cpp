// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-cli run / presets / devices: exit statuses, --help, the JSON shape of cli.md, and the
// exact fractions of the smallest positional counterexample computed by hand.
#include "cli_runner.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>

using nlohmann::json;

namespace {
// A matrix of exact strings as JSON rows (json's own initializer lists would read a list of
// two-element lists as an object).
json rows(std::vector<std::vector<std::string>> values) {
    return json(values);
}
} // namespace

class TestCliRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY2(!qEnvironmentVariable("ATTNLAB_CLI").isEmpty(), "ATTNLAB_CLI not set");
    }

    // X = [[0,0,0],[1,0,0]] + (i, i², 1) gives H = [[0,0,1],[2,1,1]]; S = H·Hᵀ = [[1,1],[1,6]];
    // softmax_like rows (1+S)/Σ: [1/2, 1/2] and [2/9, 7/9]; output = A·H =
    // [[1,1/2,1],[14/9,7/9,1]]. Swapped: H' = [[1,0,1],[1,1,1]], S' = [[2,2],[2,3]], A' =
    // [[1/2,1/2],[3/7,4/7]], output' = [[1,1/2,1],[1,4/7,1]].
    void counterexampleHasTheHandComputedFractions() {
        const CliResult r = runCli({"run", "builtin:positional-counterexample", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["n"].get<int>(), 2);
        QCOMPARE(j["d"].get<int>(), 3);
        QCOMPARE(j["precision"].get<std::string>(), std::string("exact"));
        QCOMPARE(j["backend"].get<std::string>(), std::string("cpu"));
        QCOMPARE(j["permutation"], json({1, 0}));
        QCOMPARE(j["original"]["input"], rows({{"0", "0", "1"}, {"2", "1", "1"}}));
        QCOMPARE(j["original"]["layers"][0]["heads"][0]["scores"], rows({{"1", "1"}, {"1", "6"}}));
        QCOMPARE(j["original"]["layers"][0]["heads"][0]["weights"],
                 rows({{"1/2", "1/2"}, {"2/9", "7/9"}}));
        QCOMPARE(j["original"]["output"], rows({{"1", "1/2", "1"}, {"14/9", "7/9", "1"}}));
        QCOMPARE(j["original"]["layers"][0]["output"], j["original"]["output"]);
        QCOMPARE(j["transformed"]["input"], rows({{"1", "0", "1"}, {"1", "1", "1"}}));
        QCOMPARE(j["transformed"]["layers"][0]["heads"][0]["weights"],
                 rows({{"1/2", "1/2"}, {"3/7", "4/7"}}));
        QCOMPARE(j["transformed"]["output"], rows({{"1", "1/2", "1"}, {"1", "4/7", "1"}}));
        QVERIFY(j["warnings"].is_array() && j["warnings"].empty());
    }

    void floatModesPrintNumbersAndNoTransformedSideWithoutPermutation() {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"j({"format": "attnlab-scenario", "version": 1, "precision": "float32",
            "tokens": [[1, 0], [0, 1], [1, 1]], "layers": [{"mask": {"kind": "causal"}}]})j");
        f.close();
        const CliResult r = runCli({"run", path, "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(!j.contains("transformed"));
        QVERIFY(j["original"]["output"][0][0].is_number());
        QCOMPARE(j["original"]["layers"][0]["heads"][0]["weights"][0][1].get<double>(), 0.0);
    }

    void allMaskedRowsAreWarned() {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"j({"format": "attnlab-scenario", "version": 1, "tokens": [[1], [2]],
            "layers": [{"mask": {"kind": "custom", "cells": [[1, 0], [0, 0]]}}]})j");
        f.close();
        const CliResult r = runCli({"run", path, "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["warnings"], json({"layer 0: row 1 has no allowed key (all-masked row)"}));
        QCOMPARE(j["original"]["output"][1][0].get<double>(), 0.0);
        QVERIFY(r.err.contains("all-masked row"));
    }

    void textOutputIsReadable() {
        const CliResult r = runCli({"run", "builtin:positional-counterexample"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("14/9"));
        QVERIFY(r.out.contains("largest |f(P X) - P f(X)| = 5/9"));
    }

    void outWritesNpyFiles() {
        QTemporaryDir dir;
        const CliResult r =
            runCli({"run", "builtin:positional-counterexample", "--out", dir.path()});
        QCOMPARE(r.exitCode, 0);
        for (const char* name : {"original_output.npy", "transformed_output.npy",
                                 "original_input.npy", "original_layers0_heads0_weights.npy"}) {
            QFile npy(dir.filePath(name));
            QVERIFY2(npy.open(QIODevice::ReadOnly), name);
            QVERIFY(npy.readAll().startsWith("\x93NUMPY"));
        }
        QImage weights(dir.filePath("original_layers0_heads0_weights.png"));
        QCOMPARE(weights.size(), QSize(32, 32)); // 2 x 2 cells of 16 px
        // Largest weight 7/9 at (1, 1) is yellow, smallest 2/9 at (1, 0) dark blue.
        QCOMPARE(weights.pixelColor(24, 24), QColor(253, 231, 37));
        QCOMPARE(weights.pixelColor(8, 24), QColor(68, 1, 84));
        // Compressed: flat cells take a small fraction of the raw 32 x 32 RGB pixels.
        QVERIFY(QFileInfo(dir.filePath("original_layers0_heads0_weights.png")).size() <
                32 * 32 * 3 / 4);
    }

    void exitStatuses_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << 2 << "usage";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2 << "unknown command";
        QTest::newRow("help") << QStringList{"--help"} << 0 << "";
        QTest::newRow("run help") << QStringList{"run", "--help"} << 0 << "";
        QTest::newRow("presets help") << QStringList{"presets", "--help"} << 0 << "";
        QTest::newRow("devices help") << QStringList{"devices", "--help"} << 0 << "";
        QTest::newRow("missing scenario") << QStringList{"run"} << 2 << "missing SCENARIO";
        QTest::newRow("unknown option")
            << QStringList{"run", "builtin:causal-model", "--fast"} << 2 << "unknown option --fast";
        QTest::newRow("missing file")
            << QStringList{"run", "/nonexistent.json"} << 2 << "cannot open";
        QTest::newRow("a directory")
            << QStringList{"run", QDir::tempPath()} << 2 << "is a directory, not a scenario file";
        QTest::newRow("unknown preset")
            << QStringList{"run", "builtin:nope"} << 2 << "no such built-in";
        QTest::newRow("bad backend")
            << QStringList{"run", "builtin:causal-model", "--backend", "tpu"} << 2
            << "--backend must be";
    }
    void exitStatuses() {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QString, message);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, status);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        if (status == 0) QVERIFY(r.out.contains("usage"));
    }

    void badScenarioFileNamesThePath() {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"j({"format": "attnlab-scenario", "version": 1, "tokens": [[1]], "layers": [{}],
            "permutation": [0, 0]})j");
        f.close();
        const CliResult r = runCli({"run", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("permutation: has 2 entries, expected n = 1"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void overflowIsAnErrorNotNan_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("tokens");
        QTest::addColumn<QString>("message");
        QTest::newRow("run, beyond float64")
            << "run"
            << R"j([["1e309", 1], [1, 1]])j"
            << "tokens: [0][0]: about 1e309 is beyond the range of float64";
        QTest::newRow("run, overflowing") << "run"
                                          << "[[1e300, 1], [1, 1]]"
                                          << "layers[0]: its output is not finite";
        QTest::newRow("check, overflowing") << "check"
                                            << "[[1e300, 1], [1, 1]]"
                                            << "layers[0]: its output is not finite";
    }
    void overflowIsAnErrorNotNan() {
        // Numbers that overflow float64 end in an error (exit 2), not in NaN maps and verdicts
        // that hold with a null deviation.
        QFETCH(QString, command);
        QFETCH(QString, tokens);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath("big.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QString(R"j({"format": "attnlab-scenario", "version": 1, "precision": "float64",
            "tokens": %1, "layers": [{"mixer": {"kind": "softmax"}}]})j")
                    .arg(tokens)
                    .toUtf8());
        f.close();
        const CliResult r = runCli({command, path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY2(!r.out.contains("nan") && !r.out.contains("HOLDS"), r.out.constData());
    }

    void presetsListsEveryBuiltin() {
        const CliResult r = runCli({"presets", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json list = json::parse(r.out.toStdString());
        QVERIFY(list.size() >= 5);
        for (const auto& p : list) {
            const CliResult run =
                runCli({"run", QString::fromStdString("builtin:" + p["name"].get<std::string>()),
                        "--json"});
            QVERIFY2(run.exitCode == 0, run.err.constData());
        }
    }

    void devicesListsTheCpu() {
        const CliResult r = runCli({"devices", "--json"});
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["devices"].back()["backend"].get<std::string>(), std::string("cpu"));
        QVERIFY(j["devices"].back()["memory_bytes"].get<std::uint64_t>() > 0);
    }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "test_cli_run.moc"
