// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the attnlab-cli built by this tree (path in $ATTNLAB_CLI, set by ctest) and collects its
// exit status, stdout and stderr, for the cli.* tests.
#pragma once

#include <QProcess>
#include <QtTest>

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline CliResult runCli(const QStringList& args) {
    QProcess process;
    process.start(qEnvironmentVariable("ATTNLAB_CLI"), args);
    CliResult r;
    if (!process.waitForFinished(120000)) return r;
    r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    r.out = process.readAllStandardOutput();
    r.err = process.readAllStandardError();
    return r;
}
