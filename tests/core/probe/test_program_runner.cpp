// SPDX-License-Identifier: GPL-3.0-or-later
// Running the user's program for the probe, with real programs (/bin/sh and standard tools):
// arguments and environment arrive, each failure (not found, a non-zero exit, a signal, the
// timeout, a cancel) gives its message with the end of standard error, the whole process group
// is stopped and reaped, persistent mode answers requests, and no file descriptor leaks.
#include "core/checks/property_check.h"
#include "core/probe/program_runner.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace attnlab;
using namespace std::chrono_literals;

namespace {

/// `sh -c SCRIPT sh ARGS...`: the script sees ARGS as $1, $2...
ProgramCommand shell(const std::string& script, std::vector<std::string> args = {}) {
    ProgramCommand command;
    command.argv = {"sh", "-c", script, "sh"};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    return command;
}

ProgramLimits timeoutOf(std::chrono::milliseconds timeout) {
    ProgramLimits limits;
    limits.timeout = timeout;
    return limits;
}

/// The message of the ProgramError `run` throws ("" when it throws none).
QString errorOf(const std::function<void()>& run) {
    try {
        run();
    } catch (const ProgramError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

bool throwsCancelled(const std::function<void()>& run) {
    try {
        run();
    } catch (const CancelledError&) {
        return true;
    }
    return false;
}

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

/// Whether process `pid` is gone within a second. A killed grandchild is reparented to init,
/// which in a container may never reap it: a zombie counts as gone.
bool endsSoon(pid_t pid) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
        const QString stat = readText(QString("/proc/%1/stat").arg(pid));
        const auto close = stat.lastIndexOf(')');
        if (close >= 0 && stat.mid(close + 2, 1) == "Z") return true;
        QTest::qWait(10);
    }
    return false;
}

/// No child of this process is left unreaped.
bool noZombie() {
    int status = 0;
    return ::waitpid(-1, &status, WNOHANG) <= 0;
}

int openDescriptors() {
    return int(QDir("/proc/self/fd")
                   .entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)
                   .size());
}

/// A persistent program: "IN<TAB>OUT" writes "$ATTNLAB_PROBE:IN" to OUT and answers ok; IN
/// `bad` answers an error line, `die` exits with status 4, `hang` never answers.
const std::string requestLoop = R"sh(while IFS="$(printf '\t')" read -r a b; do
  case "$a" in
    bad) echo "cannot read $b" ;;
    die) echo "dying now" >&2; exit 4 ;;
    hang) sleep 30 ;;
    *) printf '%s:%s' "$ATTNLAB_PROBE" "$a" > "$b"; echo ok ;;
  esac
done)sh";

} // namespace

class TestProgramRunner : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void displayQuotesWhatNeedsIt() {
        ProgramCommand command;
        command.argv = {"python3", "attn.py", "--x=1,2", "a b", "it's", "$HOME", ""};
        QCOMPARE(command.display(), "python3 attn.py --x=1,2 'a b' 'it'\\''s' '$HOME' ''");
    }

    void runsWithItsExtraArguments() {
        const std::string out = path("args.txt");
        runProgramOnce(shell(R"(printf '%s' "$1" > "$2")"), {"hello world", out}, timeoutOf(5s));
        QCOMPARE(readText(QString::fromStdString(out)), "hello world");
    }

    void environmentIsOursWithTheCommandsVariables() {
        ::setenv("ATTNLAB_TEST_INHERITED", "inherited", 1);
        ::setenv("ATTNLAB_TEST_OVERRIDDEN", "old", 1);
        ::unsetenv("ATTNLAB_PROBE");
        const std::string out = path("env.txt");
        ProgramCommand command = shell(
            R"(printf '%s|%s|%s|%s' "$ATTNLAB_TEST_INHERITED" "$ATTNLAB_TEST_OVERRIDDEN" \
                "$ATTNLAB_TEST_ADDED" "$ATTNLAB_PROBE" > "$1")",
            {out});
        command.environment = {{"ATTNLAB_TEST_OVERRIDDEN", "new"}, {"ATTNLAB_TEST_ADDED", "a b"}};
        runProgramOnce(command, {}, timeoutOf(5s));
        QCOMPARE(readText(QString::fromStdString(out)), "inherited|new|a b|");
    }

    void programNotFoundIsNamed() {
        ProgramCommand missing;
        missing.argv = {"attnlab-no-such-program-here"};
        QCOMPARE(errorOf([&] { runProgramOnce(missing, {}, timeoutOf(5s)); }),
                 "program not found: attnlab-no-such-program-here");
        missing.argv = {"/nonexistent-dir/program"};
        QCOMPARE(errorOf([&] { runProgramOnce(missing, {}, timeoutOf(5s)); }),
                 "program not found: /nonexistent-dir/program");
        QCOMPARE(errorOf([&] { PersistentProgram program(missing); }),
                 "program not found: /nonexistent-dir/program");

        // There but not executable (mode 0644 refuses even root).
        const std::string script = path("not-executable.sh");
        QFile file(QString::fromStdString(script));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#!/bin/sh\nexit 0\n");
        file.close();
        QVERIFY(::chmod(script.c_str(), 0644) == 0);
        ProgramCommand notExecutable;
        notExecutable.argv = {script};
        const QString message = errorOf([&] { runProgramOnce(notExecutable, {}, timeoutOf(5s)); });
        QVERIFY2(message.startsWith(QString::fromStdString("cannot run " + script + ": ")),
                 qPrintable(message));
        QVERIFY2(noZombie(), "a child was left unreaped");
    }

    void nonZeroExitQuotesTheEndOfStandardError() {
        const QString message = errorOf([&] {
            runProgramOnce(
                shell(
                    R"sh(i=1; while [ $i -le 30 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 3)sh"),
                {}, timeoutOf(5s));
        });
        QVERIFY2(message.startsWith("sh -c "), qPrintable(message));
        // The last 12 lines, 19 to 30, and none before.
        const QString quoted = message.section(" exited with status 3; its standard error ended "
                                               "with:",
                                               1);
        QVERIFY2(quoted.startsWith("\n  line 19\n  line 20\n"), qPrintable(message));
        QVERIFY2(quoted.endsWith("\n  line 29\n  line 30"), qPrintable(message));
        QCOMPARE(quoted.count("\n  "), 12);
        QVERIFY(!quoted.contains("line 18"));

        QVERIFY(errorOf([&] {
                    runProgramOnce(shell("exit 2"), {}, timeoutOf(5s));
                }).endsWith(" exited with status 2 (nothing on its standard error)"));
    }

    void muchStandardErrorDoesNotBlockIt() {
        // Far more than a pipe holds: the runner reads as the program writes.
        const QString message = errorOf([&] {
            runProgramOnce(shell("head -c 300000 /dev/zero | tr '\\0' x >&2; echo >&2; "
                                 "echo 'the end' >&2; exit 1"),
                           {}, timeoutOf(5s));
        });
        QVERIFY2(message.contains("exited with status 1") && message.endsWith("\n  the end"),
                 qPrintable(message.right(200)));
        QVERIFY(message.size() < 9000);
    }

    void killedBySignalIsNamed() {
        const QString message = errorOf(
            [&] { runProgramOnce(shell("echo bye >&2; kill -KILL $$"), {}, timeoutOf(5s)); });
        QVERIFY2(message.contains(" was killed by signal 9 (SIGKILL); its standard error ended "
                                  "with:\n  bye"),
                 qPrintable(message));
    }

    void timeoutStopsTheWholeGroup() {
        const std::string pidFile = path("grandchild.pid");
        QElapsedTimer clock;
        clock.start();
        const QString message = errorOf([&] {
            runProgramOnce(
                shell(R"(sleep 100 & echo $! > "$1"; echo started >&2; sleep 30)", {pidFile}), {},
                timeoutOf(300ms));
        });
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(message.contains(" ran past the timeout of 0.3 s and was stopped; its standard "
                                  "error ended with:\n  started"),
                 qPrintable(message));
        const pid_t grandchild = readText(QString::fromStdString(pidFile)).toInt();
        QVERIFY(grandchild > 0);
        QVERIFY2(endsSoon(grandchild), "the background grandchild still runs");
        QVERIFY2(noZombie(), "a child was left unreaped");
    }

    void timeoutKillsAProgramThatIgnoresSigterm() {
        QElapsedTimer clock;
        clock.start();
        const QString message =
            errorOf([&] { runProgramOnce(shell("trap '' TERM; sleep 30"), {}, timeoutOf(300ms)); });
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(message.contains("ran past the timeout of 0.3 s"), qPrintable(message));
        QVERIFY(noZombie());
    }

    void cancelStopsItQuickly() {
        QElapsedTimer clock;
        clock.start();
        ProgramLimits limits = timeoutOf(30s);
        limits.cancelled = [&] { return clock.elapsed() > 200; };
        QVERIFY(throwsCancelled([&] { runProgramOnce(shell("sleep 30"), {}, limits); }));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(noZombie());
    }

    void persistentProgramAnswersRequests() {
        PersistentProgram program(shell(requestLoop));
        QVERIFY(program.running());
        for (const char* name : {"one", "two", "three"}) {
            const std::string out = path(name);
            program.request(name, out, timeoutOf(5s));
            QCOMPARE(readText(QString::fromStdString(out)), QString("persistent:") + name);
        }
        QVERIFY(program.running());
    }

    void persistentErrorLineIsQuoted() {
        PersistentProgram program(shell(requestLoop));
        const QString message =
            errorOf([&] { program.request("bad", "/some/out.npy", timeoutOf(5s)); });
        QVERIFY2(message.startsWith("sh -c ") &&
                     message.contains(" answered: cannot read /some/out.npy (nothing on its "
                                      "standard error)"),
                 qPrintable(message));
        // An error answer is one request's failure: the program goes on.
        QVERIFY(program.running());
        program.request("again", path("again"), timeoutOf(5s));
        QCOMPARE(readText(dir_.filePath("again")), "persistent:again");
    }

    void persistentProgramExitingDuringARequest() {
        PersistentProgram program(shell(requestLoop));
        program.request("first", path("first"), timeoutOf(5s));
        const QString message = errorOf([&] { program.request("die", "x", timeoutOf(5s)); });
        QVERIFY2(message.contains(" exited with status 4 during a request; its standard error "
                                  "ended with:\n  dying now"),
                 qPrintable(message));
        QVERIFY(!program.running());
        QVERIFY(errorOf([&] {
                    program.request("next", "x", timeoutOf(5s));
                }).contains("is not running any more (it exited with status 4)"));
        QVERIFY(noZombie());
    }

    void writingToAProgramThatClosedItsInputRaisesNoSigpipe() {
        // Its input closed while it still runs: the write fails with EPIPE, and the SIGPIPE
        // that comes with it neither ends this process nor stays pending.
        PersistentProgram program(shell("exec 0<&-; sleep 0.3; exit 5"));
        QTest::qWait(100);
        const QString message = errorOf([&] { program.request("in", "out", timeoutOf(5s)); });
        QVERIFY2(message.contains(" exited with status 5 during a request"), qPrintable(message));
        sigset_t pending;
        sigemptyset(&pending);
        sigpending(&pending);
        QVERIFY(!sigismember(&pending, SIGPIPE));
    }

    void persistentTimeoutStopsIt() {
        PersistentProgram program(shell(requestLoop));
        QElapsedTimer clock;
        clock.start();
        const QString message = errorOf([&] { program.request("hang", "x", timeoutOf(300ms)); });
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(message.contains(" ran past the timeout of 0.3 s during a request and was "
                                  "stopped"),
                 qPrintable(message));
        QVERIFY(!program.running());
        QVERIFY(noZombie());
    }

    void persistentCancelStopsIt() {
        PersistentProgram program(shell(requestLoop));
        QElapsedTimer clock;
        clock.start();
        ProgramLimits limits = timeoutOf(30s);
        limits.cancelled = [&] { return clock.elapsed() > 200; };
        QVERIFY(throwsCancelled([&] { program.request("hang", "x", limits); }));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!program.running());
        QVERIFY(noZombie());
    }

    void destructorEndsTheProgramAndWhatItStarted() {
        {
            // One that ends at the end of its input goes at once.
            auto program = std::make_unique<PersistentProgram>(shell(requestLoop));
            program->request("one", path("quick"), timeoutOf(5s));
            QElapsedTimer clock;
            clock.start();
            program.reset();
            QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
            QVERIFY(noZombie());
        }
        // One that ignores both the end of its input and SIGTERM, with a grandchild.
        const std::string childFile = path("child.pid");
        const std::string grandchildFile = path("grandchild2.pid");
        auto program = std::make_unique<PersistentProgram>(
            shell(R"(trap '' TERM; sleep 100 & echo $! > "$1"; echo $$ > "$2"
                     while read -r line; do echo ok; done
                     while :; do sleep 1; done)",
                  {grandchildFile, childFile}));
        program->request("sync", "x", timeoutOf(5s)); // the files are written by now
        const pid_t child = readText(QString::fromStdString(childFile)).toInt();
        const pid_t grandchild = readText(QString::fromStdString(grandchildFile)).toInt();
        QVERIFY(child > 0 && grandchild > 0);
        QElapsedTimer clock;
        clock.start();
        program.reset();
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(::kill(child, 0) != 0 && errno == ESRCH, "the program still runs");
        QVERIFY2(endsSoon(grandchild), "its grandchild still runs");
        QVERIFY(noZombie());
    }

    void noFileDescriptorLeaks() {
        ProgramCommand missing;
        missing.argv = {"attnlab-no-such-program-here"};
        const auto failures = [&] {
            runProgramOnce(shell("true"), {}, timeoutOf(5s));
            QVERIFY(!errorOf([&] { runProgramOnce(missing, {}, timeoutOf(5s)); }).isEmpty());
            QVERIFY(!errorOf([&] {
                         runProgramOnce(shell("echo x >&2; exit 1"), {}, timeoutOf(5s));
                     }).isEmpty());
            QVERIFY(!errorOf([&] {
                         runProgramOnce(shell("sleep 30"), {}, timeoutOf(50ms));
                     }).isEmpty());
            QVERIFY(!errorOf([&] { PersistentProgram program(missing); }).isEmpty());
            PersistentProgram program(shell(requestLoop));
            QVERIFY(!errorOf([&] { program.request("bad", "x", timeoutOf(5s)); }).isEmpty());
            QVERIFY(!errorOf([&] { program.request("die", "x", timeoutOf(5s)); }).isEmpty());
            PersistentProgram left(shell(requestLoop)); // ended by its destructor
        };
        failures(); // anything opened once and kept (by Qt, say) is opened now
        const int before = openDescriptors();
        for (int i = 0; i < 5; ++i)
            failures();
        QCOMPARE(openDescriptors(), before);
        QVERIFY(noZombie());
    }
};

QTEST_GUILESS_MAIN(TestProgramRunner)
#include "test_program_runner.moc"
