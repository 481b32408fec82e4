// SPDX-License-Identifier: GPL-3.0-or-later
// --version of both executables: the number of CMake's project() (ATTNLAB_EXPECTED_VERSION),
// and, for the explorer ($ATTNLAB_GUI, set when the UI is built), --help and --version answered
// with no display at all (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM), as help2man needs.
#include "cli_runner.h"

class TestCliVersion : public QObject {
    Q_OBJECT
private slots:
    void cliPrintsTheProjectVersion() {
        const CliResult r = runCli({"--version"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("attnlab-cli " ATTNLAB_EXPECTED_VERSION "\n"));
        QVERIFY(r.err.isEmpty());
    }

    void cliHelpNamesTheVersionOption() {
        const CliResult r = runCli({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("--version"), r.out.constData());
    }

    void explorerAnswersWithoutADisplay_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("--version")
            << QStringList{"--version"} << QByteArray("AttnLab " ATTNLAB_EXPECTED_VERSION "\n");
        QTest::newRow("-v") << QStringList{"-v"}
                            << QByteArray("AttnLab " ATTNLAB_EXPECTED_VERSION "\n");
        QTest::newRow("--help") << QStringList{"--help"} << QByteArray("--screenshot <png>");
        QTest::newRow("help after a scenario")
            << QStringList{"builtin:causal-model", "--help"} << QByteArray("Usage:");
    }
    void explorerAnswersWithoutADisplay() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, expected);
        const QString gui = qEnvironmentVariable("ATTNLAB_GUI");
        if (gui.isEmpty()) QSKIP("built without the UI (ATTNLAB_GUI not set)");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(name);
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(gui, args);
        QVERIFY(process.waitForFinished(60000));
        const QByteArray out = process.readAllStandardOutput();
        const QByteArray err = process.readAllStandardError();
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 0, err.constData());
        QVERIFY2(out.contains(expected), out.constData());
        if (args.contains("--version")) QCOMPARE(out, expected);
    }
};

QTEST_GUILESS_MAIN(TestCliVersion)
#include "test_cli_version.moc"
