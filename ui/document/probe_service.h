// SPDX-License-Identifier: GPL-3.0-or-later
// Probing the user's program off the GUI thread (core/probe/probe.h), one probe at a time: each
// start supersedes the one before (its cancel flag is set, which ends its program's process
// group, and its late results are dropped), so the newest edit wins. In persistent mode the
// program is started once and kept between probes; a probe that failed or was cancelled leaves it
// to be started again. The results only ever reach signals: a probe changes no scenario.
#pragma once

#include "core/probe/probe.h"
#include "core/probe/program_function.h"

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <chrono>
#include <memory>

namespace attnlab::ui {

/// What one probe runs: the program (its arguments a list, never a shell string), how, and on
/// what.
struct ProbeSettings {
    ProgramCommand command;
    bool persistent = true;
    std::chrono::milliseconds timeout{120000}; // of one call
    /// The input, the intended mask, the properties (empty: the default set) and the decode
    /// step; its `cancelled` and `progress` are the service's own.
    ProbeRequest request;
};

class ProbeService : public QObject {
    Q_OBJECT
public:
    explicit ProbeService(QObject* parent = nullptr);
    /// Cancels the running probe, waits for it and ends the persistent program.
    ~ProbeService() override;

    /// Runs a probe of `settings`, superseding the one running.
    void start(ProbeSettings settings);
    /// Stops the running probe (its program's process group is killed); `cancelled` follows.
    void cancel();
    /// Ends probing: cancels the running probe, drops its results and ends the persistent
    /// program.
    void stop();
    /// Whether the newest probe has not been answered yet.
    bool isRunning() const { return running_; }

signals:
    /// The newest probe starts: the properties it measures, in its order.
    void started(const QStringList& names);
    /// After each call to the program: calls done, calls planned, sequences in them.
    void progress(int done, int calls, long sequences);
    void finished(std::shared_ptr<const attnlab::ProbeResult> result);
    /// The program failed or the request was refused: the message quotes the program's last
    /// lines of standard error.
    void failed(const QString& message);
    void cancelled();

private:
    void run(quint64 generation, const ProbeSettings& settings,
             const std::shared_ptr<std::atomic<bool>>& cancel);
    /// The program of `settings` (on the worker): the one kept when it was started the same way.
    ProgramFunction& program(const ProbeSettings& settings);
    /// Runs `deliver` on the GUI thread if `generation` is still the newest.
    template <class F>
    void post(quint64 generation, F&& deliver);

    QThreadPool pool_; // one thread: a ProgramFunction serves one probe at a time
    std::atomic<quint64> generation_{0};
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool running_ = false;
    // The worker's own: the program kept between probes and how it was started.
    std::unique_ptr<ProgramFunction> program_;
    ProgramOptions programOptions_;
};

} // namespace attnlab::ui
