// SPDX-License-Identifier: GPL-3.0-or-later
// The worker that probes the user's program (probe_service.h).
#include "ui/document/probe_service.h"

#include "core/checks/property_check.h"

#include <QMetaObject>

namespace attnlab::ui {

namespace {

ProgramOptions programOptions(const ProbeSettings& settings) {
    ProgramOptions options;
    options.command = settings.command;
    options.persistent = settings.persistent;
    options.limits.timeout = settings.timeout;
    options.queries = settings.request.queries;
    return options;
}

/// Whether a program started with `a` can serve a probe that asks for `b`.
bool sameProgram(const ProgramOptions& a, const ProgramOptions& b) {
    return a.command.argv == b.command.argv && a.command.environment == b.command.environment &&
           a.persistent == b.persistent && a.single == b.single &&
           a.limits.timeout == b.limits.timeout && a.maxBatchBytes == b.maxBatchBytes &&
           a.queries == b.queries;
}

} // namespace

ProbeService::ProbeService(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1);
    qRegisterMetaType<std::shared_ptr<const ProbeResult>>();
}

ProbeService::~ProbeService() {
    if (cancel_) *cancel_ = true;
    ++generation_;
    pool_.waitForDone();
    program_.reset();
}

void ProbeService::start(ProbeSettings settings) {
    if (cancel_) *cancel_ = true;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    const quint64 generation = ++generation_;
    running_ = true;
    pool_.start([this, generation, settings = std::move(settings), cancel = cancel_] {
        run(generation, settings, cancel);
    });
}

void ProbeService::cancel() {
    if (cancel_) *cancel_ = true;
}

void ProbeService::stop() {
    cancel();
    ++generation_;
    running_ = false;
    pool_.start([this] { program_.reset(); }); // after the cancelled probe, on its thread
}

template <class F>
void ProbeService::post(quint64 generation, F&& deliver) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, deliver = std::forward<F>(deliver)]() mutable {
            if (generation == generation_) deliver();
        },
        Qt::QueuedConnection);
}

ProgramFunction& ProbeService::program(const ProbeSettings& settings) {
    ProgramOptions wanted = programOptions(settings);
    if (!program_ || !settings.persistent || !sameProgram(programOptions_, wanted)) {
        program_.reset(); // ends the one kept before starting another
        program_ = std::make_unique<ProgramFunction>(wanted);
        programOptions_ = std::move(wanted);
    }
    return *program_;
}

void ProbeService::run(quint64 generation, const ProbeSettings& settings,
                       const std::shared_ptr<std::atomic<bool>>& cancel) {
    if (generation != generation_) return; // superseded before it started
    ProbeRequest request = settings.request;
    request.cancelled = [this, generation, cancel] {
        return cancel->load() || generation != generation_;
    };
    request.progress = [this, generation](int done, int calls, long sequences) {
        post(generation, [this, done, calls, sequences] { emit progress(done, calls, sequences); });
    };
    try {
        QStringList names;
        for (const std::string& name : probeProperties(request))
            names << QString::fromStdString(name);
        post(generation, [this, names] { emit started(names); });
        auto result = std::make_shared<const ProbeResult>(runProbe(request, program(settings)));
        if (!settings.persistent) program_.reset();
        post(generation, [this, result] {
            running_ = false;
            emit finished(result);
        });
    } catch (const CancelledError&) {
        program_.reset(); // the runner killed it, or it was between calls: either way, anew
        post(generation, [this] {
            running_ = false;
            emit cancelled();
        });
    } catch (const std::exception& e) {
        program_.reset();
        const QString message = QString::fromStdString(e.what());
        post(generation, [this, message] {
            running_ = false;
            emit failed(message);
        });
    } catch (...) { // nothing may leave the thread that runs it
        program_.reset();
        post(generation, [this] {
            running_ = false;
            emit failed("the probe failed with an unknown error");
        });
    }
}

} // namespace attnlab::ui
