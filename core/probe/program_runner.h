// SPDX-License-Identifier: GPL-3.0-or-later
// Running the user's program for the probe (POSIX): its arguments as a list, never a shell
// string; in a process group of its own, so that a timeout or a cancel ends it and everything it
// started; its standard error kept (the last lines) for the message when it fails. One-shot mode
// runs `PROGRAM ARGS... IN OUT` per batch; persistent mode starts the program once and sends it
// one request per line on its standard input.
#pragma once

#include "core/base/error.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

/// The program and its arguments (argv[0] is looked up on PATH when it has no slash), and
/// variables added to its environment.
struct ProgramCommand {
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> environment;
    /// The command as one line for messages (arguments quoted where they need it).
    std::string display() const;
};

/// How long one call may take, and how the caller asks it to stop (polled about every 50 ms).
struct ProgramLimits {
    std::chrono::milliseconds timeout{120000};
    std::function<bool()> cancelled;
};

/// The program failed: not found, a non-zero exit, killed by a signal, past its timeout, or (in
/// persistent mode) an answer other than `ok`. what() names the cause and quotes the last lines
/// of its standard error.
class ProgramError : public InputError {
public:
    using InputError::InputError;
};

/// Runs `command.argv + extraArgs` to its end; returns when it exits with status 0. Throws
/// ProgramError otherwise, and CancelledError (property_check.h) when `limits.cancelled` says
/// so; in both cases the whole process group is killed and reaped first.
void runProgramOnce(const ProgramCommand& command, const std::vector<std::string>& extraArgs,
                    const ProgramLimits& limits);

/// A program started once that answers requests: AttnLab writes "IN<TAB>OUT\n" to its standard
/// input, it answers one line on its standard output, "ok" or an error message. Its environment
/// has ATTNLAB_PROBE=persistent. The destructor closes its input, waits a moment, then kills its
/// process group and reaps it.
class PersistentProgram {
public:
    /// Starts the program; throws ProgramError when it cannot be started.
    explicit PersistentProgram(ProgramCommand command);
    ~PersistentProgram();
    PersistentProgram(const PersistentProgram&) = delete;
    PersistentProgram& operator=(const PersistentProgram&) = delete;

    /// One request; returns on "ok". Throws ProgramError (an error line, the program exited, or
    /// past the timeout: then it is killed and running() is false) or CancelledError (killed
    /// too).
    void request(const std::string& input, const std::string& output, const ProgramLimits& limits);
    bool running() const;

private:
    struct Process;
    std::unique_ptr<Process> process_;
};

} // namespace attnlab
