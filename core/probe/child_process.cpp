// SPDX-License-Identifier: GPL-3.0-or-later
// A child process of the probe's runner (child_process.h).
#include "core/probe/child_process.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char** environ;

namespace attnlab::child {

namespace {

constexpr milliseconds termGrace{200}; // SIGTERM to SIGKILL

/// `fd` moved to a number above 2 (still O_CLOEXEC): when the caller has closed its own standard
/// streams a new descriptor can be 0, 1 or 2, and the dup2 onto the child's standard streams
/// would then overwrite one source with another.
Fd aboveStandardStreams(Fd fd) {
    if (fd.get() > 2) return fd;
    const int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
    if (moved < 0) throw ProgramError("cannot duplicate a file descriptor: " + errnoText(errno));
    return Fd(moved); // the low one is closed with `fd`
}

std::string signalName(int signal) {
    switch (signal) {
    case SIGHUP:
        return "SIGHUP";
    case SIGINT:
        return "SIGINT";
    case SIGQUIT:
        return "SIGQUIT";
    case SIGILL:
        return "SIGILL";
    case SIGTRAP:
        return "SIGTRAP";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGKILL:
        return "SIGKILL";
    case SIGUSR1:
        return "SIGUSR1";
    case SIGSEGV:
        return "SIGSEGV";
    case SIGUSR2:
        return "SIGUSR2";
    case SIGPIPE:
        return "SIGPIPE";
    case SIGALRM:
        return "SIGALRM";
    case SIGTERM:
        return "SIGTERM";
    case SIGXCPU:
        return "SIGXCPU";
    case SIGXFSZ:
        return "SIGXFSZ";
    case SIGSYS:
        return "SIGSYS";
    default:
        break;
    }
    if (signal >= SIGRTMIN && signal <= SIGRTMAX)
        return "SIGRTMIN+" + std::to_string(signal - SIGRTMIN);
    return "an unknown signal";
}

/// The environment the program gets: ours with `overrides` set (the later of two equal names
/// wins).
std::vector<std::string>
environmentWith(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::vector<std::string> set;
    std::vector<std::string> names;
    for (const auto& [name, value] : overrides) {
        const auto at = std::find(names.begin(), names.end(), name);
        if (at != names.end()) {
            set[std::size_t(at - names.begin())] = name + "=" + value;
        } else {
            names.push_back(name);
            set.push_back(name + "=" + value);
        }
    }
    std::vector<std::string> out;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        const std::string_view name = text.substr(0, text.find('='));
        if (std::find(names.begin(), names.end(), name) == names.end()) out.emplace_back(text);
    }
    out.insert(out.end(), set.begin(), set.end());
    return out;
}

void signalGroup(pid_t pid, int signal) {
    if (::kill(-pid, signal) != 0 && errno == ESRCH) ::kill(pid, signal);
}

} // namespace

std::string errnoText(int error) {
    return std::strerror(error);
}

Pipe makePipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw ProgramError("cannot create a pipe: " + errnoText(errno));
    Fd read(fds[0]);
    Fd write(fds[1]);
    Pipe pipe;
    pipe.read = aboveStandardStreams(std::move(read));
    pipe.write = aboveStandardStreams(std::move(write));
    return pipe;
}

Fd openDevNull(int flags) {
    Fd fd(::open("/dev/null", flags | O_CLOEXEC));
    if (!fd) throw ProgramError("cannot open /dev/null: " + errnoText(errno));
    return aboveStandardStreams(std::move(fd));
}

void setNonBlocking(const Fd& fd) {
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) < 0)
        throw ProgramError("cannot set up a pipe: " + errnoText(errno));
}

void pollFor(std::vector<pollfd>& fds, milliseconds wait) {
    const auto until = Clock::now() + wait;
    for (;;) {
        const auto left = std::chrono::ceil<milliseconds>(until - Clock::now());
        const int rc = ::poll(fds.empty() ? nullptr : fds.data(), nfds_t(fds.size()),
                              int(std::max<long long>(left.count(), 1)));
        if (rc >= 0 || errno != EINTR || Clock::now() >= until) return;
    }
}

void sleepFor(milliseconds wait) {
    std::vector<pollfd> none;
    pollFor(none, wait);
}

std::string endText(int status) {
    if (status == statusLost) return "ended (its exit status was taken by another part of AttnLab)";
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        return "was killed by signal " + std::to_string(signal) + " (" + signalName(signal) + ")";
    }
    return "ended with wait status " + std::to_string(status);
}

/// Starts the program with `in`, `out` and `err` as its standard streams, in a new process
/// group. glibc's posix_spawn waits (CLONE_VFORK) until the exec has succeeded or failed and
/// returns the exec's errno, so "not found" is told reliably without a pipe of our own.
pid_t spawnProgram(const ProgramCommand& command, const std::vector<std::string>& extraArgs,
                   const std::vector<std::pair<std::string, std::string>>& extraEnvironment,
                   const Fd& in, const Fd& out, const Fd& err) {
    std::vector<std::string> args = command.argv;
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    std::vector<char*> argv;
    for (auto& arg : args)
        argv.push_back(arg.data());
    argv.push_back(nullptr);

    auto overrides = command.environment;
    overrides.insert(overrides.end(), extraEnvironment.begin(), extraEnvironment.end());
    std::vector<std::string> environment = environmentWith(overrides);
    std::vector<char*> envp;
    for (auto& entry : environment)
        envp.push_back(entry.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    if (int rc = posix_spawn_file_actions_init(&actions); rc != 0)
        throw ProgramError("cannot run " + command.argv[0] + ": " + errnoText(rc));
    struct ActionsGuard {
        posix_spawn_file_actions_t* actions;
        ~ActionsGuard() { posix_spawn_file_actions_destroy(actions); }
    } actionsGuard{&actions};
    posix_spawnattr_t attributes;
    if (int rc = posix_spawnattr_init(&attributes); rc != 0)
        throw ProgramError("cannot run " + command.argv[0] + ": " + errnoText(rc));
    struct AttributesGuard {
        posix_spawnattr_t* attributes;
        ~AttributesGuard() { posix_spawnattr_destroy(attributes); }
    } attributesGuard{&attributes};

    int rc = posix_spawn_file_actions_adddup2(&actions, in.get(), STDIN_FILENO);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, out.get(), STDOUT_FILENO);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, err.get(), STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Ours are all O_CLOEXEC; this also keeps out what a library opened without it.
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    // The child's signals as a fresh program expects them: none blocked (the calling thread
    // may block some), and the ones a caller may ignore (SIGPIPE above all) back to default.
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int signal : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM, SIGUSR1,
                       SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU, SIGXFSZ})
        sigaddset(&defaults, signal);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                       POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = posix_spawnattr_setpgroup(&attributes, 0);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &defaults);
    if (rc != 0) throw ProgramError("cannot run " + command.argv[0] + ": " + errnoText(rc));

    pid_t pid = -1;
    rc = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
    if (rc != 0) {
        const std::string& name = command.argv[0];
        if (rc == ENOENT || rc == ENOTDIR) {
            // A file that is there but cannot be found: its #! line names a missing interpreter.
            struct stat info;
            if (name.find('/') != std::string::npos && ::stat(name.c_str(), &info) == 0)
                throw ProgramError("cannot run " + name +
                                   ": the interpreter named on its #! line was not found");
            throw ProgramError("program not found: " + name);
        }
        throw ProgramError("cannot run " + name + ": " + errnoText(rc));
    }
    // The child has set its group already (posix_spawn returns after the exec); this covers a
    // posix_spawn that returns earlier. After the exec it fails with EACCES, which is fine.
    ::setpgid(pid, pid);
    return pid;
}

/// Whether the child has ended, without reaping it: the zombie keeps its process group id
/// taken, so the group can still be killed by that id without hitting a stranger.
bool hasEnded(pid_t pid) {
    for (;;) {
        siginfo_t info;
        std::memset(&info, 0, sizeof info);
        if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0)
            return info.si_pid == pid;
        if (errno != EINTR) return true; // ECHILD: nothing left to wait for
    }
}

/// Kills what is left of the child's group (what it started and left behind) and reaps the
/// child; returns its wait status.
int reap(pid_t pid) {
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    // Not our child any more: its id may be a stranger's by now, so nothing is signalled.
    if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD)
        return statusLost;
    signalGroup(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return statusLost;
    return status;
}

/// Asks the group to end (SIGTERM), gives the child a moment, then kills the group and reaps.
int stopGroup(pid_t pid) {
    signalGroup(pid, SIGTERM);
    const auto until = Clock::now() + termGrace;
    while (!hasEnded(pid) && Clock::now() < until)
        sleepFor(milliseconds(5));
    return reap(pid);
}

} // namespace attnlab::child
