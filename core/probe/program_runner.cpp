// SPDX-License-Identifier: GPL-3.0-or-later
// Running the user's program for the probe (program_runner.h): the child (child_process.h)
// started with its pipes, a poll loop over them that watches the timeout and the cancel
// callback, the tail of its standard error for the messages, and the persistent program's
// request lines.
#include "core/probe/program_runner.h"

#include "core/checks/property_check.h"
#include "core/probe/child_process.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>

namespace attnlab {

namespace {

using namespace child;

constexpr milliseconds pollStep{50};           // how often the cancel callback is asked
constexpr milliseconds closeGrace{300};        // persistent: closed input to SIGTERM
constexpr std::size_t tailBytes = 8192;        // standard error kept
constexpr std::size_t tailLines = 12;          // of which the messages quote the last lines
constexpr std::size_t answerBytes = 64 * 1024; // an answer line kept (the rest is dropped)
constexpr std::size_t answerShown = 300;       // of which a message quotes the start

/// The last bytes of the program's standard error, and the last lines of those for a message.
class ErrorTail {
public:
    void append(std::string_view text) {
        text_.append(text);
        if (text_.size() > 2 * tailBytes) {
            text_.erase(0, text_.size() - tailBytes);
            dropped_ = true;
        }
    }

    /// "; its standard error ended with:\n  line..." or " (nothing on its standard error)".
    std::string quoted() const {
        std::string text = text_;
        if (text.size() > tailBytes) text.erase(0, text.size() - tailBytes);
        // A partial first line (the bytes before it were dropped) is left out.
        if (dropped_ || text_.size() > tailBytes) {
            const auto newline = text.find('\n');
            text.erase(0, newline == std::string::npos ? 0 : newline + 1);
        }
        std::vector<std::string> lines;
        for (std::size_t start = 0; start < text.size();) {
            auto end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            std::string line = text.substr(start, end - start);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            lines.push_back(std::move(line));
            start = end + 1;
        }
        while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos)
            lines.pop_back();
        if (lines.empty()) return " (nothing on its standard error)";
        std::string out = "; its standard error ended with:";
        for (std::size_t i = lines.size() > tailLines ? lines.size() - tailLines : 0;
             i < lines.size(); ++i)
            out += "\n  " + lines[i];
        return out;
    }

private:
    std::string text_;
    bool dropped_ = false;
};

/// "120 s", "0.3 s".
std::string secondsText(milliseconds timeout) {
    const long long ms = timeout.count();
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
    char text[64];
    std::snprintf(text, sizeof text, "%.3f", double(ms) / 1000.0);
    std::string out = text;
    while (out.back() == '0')
        out.pop_back();
    return out + " s";
}

/// Whether a word goes into a shell line as it is (the set shlex.quote leaves alone).
bool plainWord(const std::string& word) {
    if (word.empty()) return false;
    return std::all_of(word.begin(), word.end(), [](unsigned char c) {
        return std::isalnum(c) || std::strchr("@%+=:,./-_", c) != nullptr;
    });
}

void checkCommand(const ProgramCommand& command, const std::vector<std::string>& extraArgs) {
    if (command.argv.empty() || command.argv[0].empty()) throw ProgramError("no program given");
    const auto holdsNul = [](const std::string& text) {
        return text.find('\0') != std::string::npos;
    };
    for (const auto& list : {&command.argv, &extraArgs})
        for (const auto& arg : *list)
            if (holdsNul(arg))
                throw ProgramError("an argument of " + command.display() +
                                   " holds a NUL character, which a program cannot be given");
    for (const auto& [name, value] : command.environment)
        if (name.empty() || name.find('=') != std::string::npos || holdsNul(name) ||
            holdsNul(value))
            throw ProgramError("cannot set the environment variable '" + name + "' for " +
                               command.display() + ": not a valid name or value");
}

/// Writes without the SIGPIPE a closed pipe raises: the signal is blocked in this thread for
/// the write, and one the write raised is taken off before the mask is restored (the process's
/// disposition of SIGPIPE is the application's business, not ours).
ssize_t writeWithoutSigpipe(int fd, const char* data, std::size_t size) {
    sigset_t pipeSignal;
    sigemptyset(&pipeSignal);
    sigaddset(&pipeSignal, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    // One already pending is the caller's; ours would merge into it and must not be taken off.
    const bool alreadyPending = sigismember(&pending, SIGPIPE) == 1;
    sigset_t previous;
    const bool blocked =
        !alreadyPending && ::pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous) == 0;
    ssize_t n;
    do
        n = ::write(fd, data, size);
    while (n < 0 && errno == EINTR);
    const int error = errno;
    if (blocked) {
        if (n < 0 && error == EPIPE) {
            const timespec zero{0, 0};
            while (::sigtimedwait(&pipeSignal, nullptr, &zero) < 0 && errno == EINTR) {
            }
        }
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    }
    errno = error;
    return n;
}

bool cancelRequested(const ProgramLimits& limits) {
    return limits.cancelled && limits.cancelled();
}

} // namespace

std::string ProgramCommand::display() const {
    std::string out;
    for (const std::string& arg : argv) {
        if (!out.empty()) out += ' ';
        if (plainWord(arg)) {
            out += arg;
            continue;
        }
        out += '\'';
        for (char c : arg)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

void runProgramOnce(const ProgramCommand& command, const std::vector<std::string>& extraArgs,
                    const ProgramLimits& limits) {
    checkCommand(command, extraArgs);
    const std::string name = command.display();
    Pipe error = makePipe();
    setNonBlocking(error.read);
    pid_t pid;
    {
        const Fd in = openDevNull(O_RDONLY);
        const Fd out = openDevNull(O_WRONLY);
        pid = spawnProgram(command, extraArgs, {}, in, out, error.write);
    }
    error.write.reset(); // the child's copy is the only writer left: its end is our EOF
    ChildGuard child(pid);
    ErrorTail tail;
    const auto appendTail = [&](std::string_view text) { tail.append(text); };
    const auto start = Clock::now();
    for (;;) {
        if (cancelRequested(limits)) {
            child.stop();
            throw CancelledError();
        }
        if (hasEnded(pid)) {
            if (error.read) readAvailable(error.read, appendTail);
            const int status = child.reap();
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
            throw ProgramError(name + " " + endText(status) + tail.quoted());
        }
        const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        if (elapsed >= limits.timeout) {
            child.stop();
            if (error.read) readAvailable(error.read, appendTail);
            throw ProgramError(name + " ran past the timeout of " + secondsText(limits.timeout) +
                               " and was stopped" + tail.quoted());
        }
        const auto wait = std::min<milliseconds>(pollStep, limits.timeout - elapsed);
        if (error.read) {
            std::vector<pollfd> fds{{error.read.get(), POLLIN, 0}};
            pollFor(fds, wait);
            if (fds[0].revents != 0 && !readAvailable(error.read, appendTail)) error.read.reset();
        } else {
            // Its standard error is closed: only its end is waited for (a short step, since
            // the end of the pipe usually comes a moment before the end of the process).
            sleepFor(std::min(wait, milliseconds(5)));
        }
    }
}

struct PersistentProgram::Process {
    std::string name; // ProgramCommand::display()
    pid_t pid = -1;   // -1 once reaped
    Fd input, output, error;
    std::string answer;         // read from its standard output, not yet taken as an answer
    std::size_t lineLength = 0; // of the line being read (after the last '\n' in `answer`)
    ErrorTail tail;
    std::string ended; // how it ended, once reaped

    void readOutput() {
        if (output && !readAvailable(output, [&](std::string_view text) { keep(text); }))
            output.reset();
    }
    void readError() {
        if (error && !readAvailable(error, [&](std::string_view text) { tail.append(text); }))
            error.reset();
    }
    // A line past answerBytes keeps its start only: the message quotes no more.
    void keep(std::string_view text) {
        for (char c : text) {
            if (c == '\n') {
                answer += c;
                lineLength = 0;
            } else if (lineLength < answerBytes) {
                answer += c;
                ++lineLength;
            }
        }
    }
    void finish(std::string how) {
        pid = -1;
        ended = std::move(how);
        input.reset();
        output.reset();
        error.reset();
    }
};

PersistentProgram::PersistentProgram(ProgramCommand command)
    : process_(std::make_unique<Process>()) {
    checkCommand(command, {});
    process_->name = command.display();
    Pipe input = makePipe();
    Pipe output = makePipe();
    Pipe error = makePipe();
    setNonBlocking(input.write);
    setNonBlocking(output.read);
    setNonBlocking(error.read);
    process_->pid = spawnProgram(command, {}, {{"ATTNLAB_PROBE", "persistent"}}, input.read,
                                 output.write, error.write);
    process_->input = std::move(input.write);
    process_->output = std::move(output.read);
    process_->error = std::move(error.read);
    // The child ends of the pipes close with `input`, `output` and `error` here.
}

PersistentProgram::~PersistentProgram() {
    Process& p = *process_;
    if (p.pid < 0) return;
    p.input.reset(); // its end of input: a program reading requests ends now
    const auto until = Clock::now() + closeGrace;
    while (!hasEnded(p.pid) && Clock::now() < until) {
        // Read on, so that a program writing as it ends is not stuck on a full pipe.
        std::vector<pollfd> fds;
        if (p.output) fds.push_back({p.output.get(), POLLIN, 0});
        if (p.error) fds.push_back({p.error.get(), POLLIN, 0});
        pollFor(fds, milliseconds(fds.empty() ? 5 : 20));
        p.readOutput();
        p.readError();
        p.answer.clear();
    }
    if (hasEnded(p.pid))
        reap(p.pid);
    else
        stopGroup(p.pid);
    p.finish("was closed");
}

bool PersistentProgram::running() const {
    Process& p = *process_;
    if (p.pid < 0) return false;
    if (!hasEnded(p.pid)) return true;
    p.readError();
    const int status = reap(p.pid);
    p.finish(endText(status));
    return false;
}

void PersistentProgram::request(const std::string& input, const std::string& output,
                                const ProgramLimits& limits) {
    Process& p = *process_;
    for (const std::string* path : {&input, &output})
        if (path->find_first_of("\t\n\r") != std::string::npos ||
            path->find('\0') != std::string::npos)
            throw ProgramError("cannot send '" + *path + "' to " + p.name +
                               ": a tab or a line break in a path would break the request line");

    if (!running()) throw ProgramError(p.name + " is not running any more (it " + p.ended + ")");

    const std::string line = input + "\t" + output + "\n";
    std::size_t written = 0;
    // Stops the program on a timeout or cancel; the caller then throws.
    const auto stop = [&](std::string how) {
        stopGroup(p.pid);
        p.readError();
        p.finish(std::move(how));
    };
    const auto start = Clock::now();
    for (;;) {
        if (const auto newline = p.answer.find('\n'); newline != std::string::npos) {
            std::string answer = p.answer.substr(0, newline);
            p.answer.erase(0, newline + 1);
            if (!answer.empty() && answer.back() == '\r') answer.pop_back();
            if (answer == "ok") return;
            if (answer.size() > answerShown) answer = answer.substr(0, answerShown) + "...";
            p.readError();
            throw ProgramError(p.name + " answered: " + answer + p.tail.quoted());
        }
        if (cancelRequested(limits)) {
            stop("was stopped by a cancel");
            throw CancelledError();
        }
        if (hasEnded(p.pid)) {
            // What it wrote before its end is read first: an "ok" and then an exit answers
            // this request (the next one finds it ended).
            p.readOutput();
            p.readError();
            if (p.answer.find('\n') != std::string::npos) continue;
            const int status = reap(p.pid);
            p.finish(endText(status));
            throw ProgramError(p.name + " " + p.ended + " during a request" + p.tail.quoted());
        }
        const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        if (elapsed >= limits.timeout) {
            stop("was stopped after the timeout of " + secondsText(limits.timeout));
            throw ProgramError(p.name + " ran past the timeout of " + secondsText(limits.timeout) +
                               " during a request and was stopped" + p.tail.quoted());
        }
        const auto wait = std::min<milliseconds>(pollStep, limits.timeout - elapsed);

        std::vector<pollfd> fds;
        const bool writing = p.input && written < line.size();
        if (writing) fds.push_back({p.input.get(), POLLOUT, 0});
        if (p.output) fds.push_back({p.output.get(), POLLIN, 0});
        if (p.error) fds.push_back({p.error.get(), POLLIN, 0});
        // With its output closed only its end is waited for (see runProgramOnce).
        pollFor(fds, p.output ? wait : std::min(wait, milliseconds(5)));
        for (const pollfd& fd : fds) {
            if (fd.revents == 0) continue;
            if (fd.fd == p.input.get()) {
                const ssize_t n = writeWithoutSigpipe(p.input.get(), line.data() + written,
                                                      line.size() - written);
                if (n > 0) {
                    written += std::size_t(n);
                } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    // EPIPE: it closed its input, so it is ending; its end is reported above.
                    p.input.reset();
                }
            } else if (fd.fd == p.output.get()) {
                p.readOutput();
            } else if (fd.fd == p.error.get()) {
                p.readError();
            }
        }
    }
}

} // namespace attnlab
