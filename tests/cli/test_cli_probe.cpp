// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli probe` as a user runs it: exit status 0 / 1 / 2 as `check`, `--json` in check's
// shape with the witness keys, `--out` files, and usage errors that name the problem.
#include "cli_runner.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <csignal>

namespace {

QStringList attention(const QStringList& options) {
    return QStringList{"--", qEnvironmentVariable("ATTNLAB_PYTHON"),
                       QString(ATTNLAB_SOURCE_DIR) + "/examples/probe/numpy_attention.py"} +
           options;
}

} // namespace

class TestCliProbe : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (qEnvironmentVariable("ATTNLAB_PYTHON").isEmpty())
            QSKIP("no python3 with numpy was found at configure time (Debian: python3-numpy)");
    }

    void correctProgramExitsZero() {
        const CliResult r = runCli(QStringList{"probe", "--tokens", "10", "--mask", "causal"} +
                                   attention({"--mask", "causal"}));
        QVERIFY2(r.exitCode == 0, r.out + r.err);
        QVERIFY(r.out.contains("HOLDS mask"));
        QVERIFY(r.out.contains("HOLDS causality"));
    }

    void plantedLeakExitsOneWithItsWitnessInJson() {
        QTemporaryDir dir;
        const CliResult r = runCli(QStringList{"probe", "--tokens", "8", "--mask", "causal",
                                               "--json", "--out", dir.path()} +
                                   attention({"--mask", "causal", "--bug", "leak"}));
        QVERIFY2(r.exitCode == 1, r.out + r.err);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j.contains("calls") && j.contains("sequences") && j.contains("precision"));
        bool sawCausality = false;
        for (const auto& p : j["properties"]) {
            for (const char* key :
                 {"name", "verdict", "holds", "max_deviation", "tolerance", "witness", "details"})
                QVERIFY2(p.contains(key), key);
            if (p["name"] == "causality") {
                sawCausality = true;
                QCOMPARE(p["holds"].get<bool>(), false);
                QCOMPARE(p["witness"]["output_row"].get<int>(), 2);
                QCOMPARE(p["witness"]["input_token"].get<int>(), 5);
                QVERIFY(p.contains("shrunk_witness")); // the nearest such pair
            }
        }
        QVERIFY(sawCausality);
        for (const char* file :
             {"report.json", "tokens.npy", "dependency_map.npy", "intended_mask.npy"})
            QVERIFY2(QFile::exists(dir.filePath(file)), file);
    }

    void failingProgramExitsTwoQuotingItsStandardError() {
        const CliResult r =
            runCli({"probe", "--", qEnvironmentVariable("ATTNLAB_PYTHON"),
                    QString(ATTNLAB_SOURCE_DIR) + "/tests/probe_programs/bad_program.py", "--fail",
                    "exit"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("the last line of stderr"), r.err);
    }

    // A termination request while the program runs (Ctrl-C reaches only the CLI: the program
    // has a process group of its own) stops the program and what it started, and exits 130.
    void interruptedProbeStopsTheProgram() {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath("pid");
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("ATTNLAB_TEST_PIDFILE", pidFile);
        cli.setProcessEnvironment(env);
        cli.start(qEnvironmentVariable("ATTNLAB_CLI"),
                  {"probe", "--tokens", "4", "--", qEnvironmentVariable("ATTNLAB_PYTHON"),
                   QString(ATTNLAB_SOURCE_DIR) + "/tests/probe_programs/bad_program.py", "--fail",
                   "hang-child"});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile), 20000);
        QFile file(pidFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const pid_t child = pid_t(file.readAll().trimmed().toInt());
        QVERIFY(child > 0);
        cli.terminate();
        QVERIFY(cli.waitForFinished(10000));
        QCOMPARE(cli.exitCode(), 130);
        QVERIFY(cli.readAllStandardError().contains("interrupted"));
        QTRY_VERIFY_WITH_TIMEOUT(::kill(child, 0) != 0, 5000); // the grandchild is gone
    }

    void usageErrorsExitTwo() {
        QCOMPARE(runCli({"probe", "--tokens", "8"}).exitCode, 2); // no program
        const CliResult unknown =
            runCli(QStringList{"probe", "--property", "tiling"} + attention({}));
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("prefix-consistency"), unknown.err); // the list it takes
        QCOMPARE(runCli(QStringList{"probe", "--precision", "float16"} + attention({})).exitCode,
                 2);
        const CliResult help = runCli({"probe", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("--max-batch-bytes"));
    }
};

QTEST_GUILESS_MAIN(TestCliProbe)
#include "test_cli_probe.moc"
