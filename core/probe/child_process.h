// SPDX-License-Identifier: GPL-3.0-or-later
// A child process of the probe's runner (program_runner.h), POSIX: file descriptors that close
// with their owner, pipes above the standard streams, posix_spawn with an argument list (no
// shell) into a process group of its own, and ending that group: SIGTERM, a moment, SIGKILL,
// reaped, so that nothing the program started is left behind. Private to core/probe.
#pragma once

#include "core/probe/program_runner.h"

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cerrno>
#include <poll.h>
#include <sys/types.h>
#include <unistd.h>

namespace attnlab::child {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// The wait status when another part of AttnLab reaped the child.
constexpr int statusLost = -1;

/// A file descriptor closed with its owner, so that no path (an exception included) leaks one.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

struct Pipe {
    Fd read, write;
};

std::string errnoText(int error);
/// A pipe whose ends are O_CLOEXEC and above the standard streams.
Pipe makePipe();
Fd openDevNull(int flags);
void setNonBlocking(const Fd& fd);

/// Reads what `fd` (non-blocking) holds now into `sink`; false at its end (or an error), when
/// the caller closes it.
template <class Sink>
bool readAvailable(const Fd& fd, Sink&& sink) {
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n > 0) {
            sink(std::string_view(buffer, std::size_t(n)));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        return false;
    }
}

/// poll() for `wait` (at least a millisecond), retried on EINTR with the time left.
void pollFor(std::vector<pollfd>& fds, milliseconds wait);
void sleepFor(milliseconds wait);

/// How a wait status ended: "exited with status 3", "was killed by signal 9 (SIGKILL)".
std::string endText(int status);

/// Starts the program (`command.argv + extraArgs`, its environment with `extraEnvironment` set
/// too) with `in`, `out` and `err` as its standard streams, in a new process group; throws
/// ProgramError naming why it cannot be started.
pid_t spawnProgram(const ProgramCommand& command, const std::vector<std::string>& extraArgs,
                   const std::vector<std::pair<std::string, std::string>>& extraEnvironment,
                   const Fd& in, const Fd& out, const Fd& err);
/// Whether the child has ended, without reaping it.
bool hasEnded(pid_t pid);
/// Kills what is left of the child's group and reaps the child; returns its wait status.
int reap(pid_t pid);
/// Asks the group to end (SIGTERM), gives the child a moment, then kills the group and reaps.
int stopGroup(pid_t pid);

/// The child of a call, stopped and reaped when the call leaves by an exception.
class ChildGuard {
public:
    explicit ChildGuard(pid_t pid) : pid_(pid) {}
    ~ChildGuard() {
        if (pid_ > 0) stopGroup(pid_);
    }
    ChildGuard(const ChildGuard&) = delete;
    ChildGuard& operator=(const ChildGuard&) = delete;
    int reap() { return child::reap(std::exchange(pid_, -1)); }
    int stop() { return stopGroup(std::exchange(pid_, -1)); }

private:
    pid_t pid_;
};

} // namespace attnlab::child
