// SPDX-License-Identifier: GPL-3.0-or-later
// The worker behind the explorer's views and verdicts.
#include "ui/document/compute_service.h"

#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/checks/model_cache.h"
#include "core/explore/resource_limits.h"

#include <QMetaObject>
#include <QThread>

#include <atomic>
#include <optional>
#include <system_error>
#include <thread>

namespace attnlab::ui {

ComputeService::ComputeService(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1); // one request at a time; superseded ones are skipped
    viewsPool_.setMaxThreadCount(1);
    qRegisterMetaType<std::shared_ptr<const SideBySide>>();
    qRegisterMetaType<std::shared_ptr<const HeadOverview>>();
    qRegisterMetaType<PropertyReport>();
}

ComputeService::~ComputeService() {
    if (cancelled_) *cancelled_ = true;
    ++generation_;
    pool_.waitForDone();
    viewsPool_.waitForDone();
}

std::vector<CheckSpec> ComputeService::checks() const {
    return last_ ? panelChecks(last_->scenario, last_->transform, chosen_)
                 : std::vector<CheckSpec>{};
}

nlohmann::json ComputeService::chosenParameters(const QString& property) const {
    const auto it = chosen_.find(property.toStdString());
    return it == chosen_.end() ? nlohmann::json::object() : it->second;
}

void ComputeService::setChosenParameters(const QString& property, const nlohmann::json& params) {
    chosen_[property.toStdString()] = params;
    if (!last_) return;
    if (busy_) { // the running pass would deliver the old parameters' verdict: start it again
        schedule(last_, lastAll_);
        return;
    }
    const std::vector<CheckSpec> specs = checks();
    for (std::size_t i = 0; i < specs.size(); ++i)
        if (specs[i].name == property.toStdString()) {
            emit checkRestarted(int(i));
            schedule(last_, lastAll_, int(i));
        }
}

void ComputeService::request(std::shared_ptr<const ExplorerState> state) {
    schedule(std::move(state), false);
}

void ComputeService::runAllChecks() {
    if (last_) schedule(last_, true, -1, shown_.lock() != last_);
}

void ComputeService::schedule(std::shared_ptr<const ExplorerState> state, bool allChecks, int only,
                              bool views) {
    last_ = state;
    lastAll_ = allChecks;
    if (cancelled_) *cancelled_ = true;
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    const quint64 generation = ++generation_;
    busy_ = true;
    pool_.start([this, generation, state = std::move(state), checks = checks(), allChecks, only,
                 views, cancelled = cancelled_, comparison = comparison_,
                 viewsGeneration = quint64(viewsGeneration_)] {
        if (generation == generation_)
            run(generation, state, checks, allChecks, only, views, cancelled, comparison,
                viewsGeneration);
    });
}

void ComputeService::setComparison(Comparison comparison, bool redraw) {
    comparison_ = std::move(comparison);
    const quint64 viewsGeneration = ++viewsGeneration_;
    if (!redraw || !last_) return;
    const quint64 generation = generation_;
    viewsPool_.start([this, generation, viewsGeneration, state = last_, c = comparison_] {
        if (generation != generation_ || viewsGeneration != viewsGeneration_) return;
        try {
            DrawnComparison drawn;
            auto v = std::make_shared<const SideBySide>(views(state, c, drawn));
            postViews(generation, viewsGeneration, [this, v, state, drawn] {
                shown_ = state;
                emit viewsReady(v, drawn);
            });
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            postViews(generation, viewsGeneration, [this, message] { emit viewsFailed(message); });
        }
    });
}

SideBySide ComputeService::views(const std::shared_ptr<const ExplorerState>& shared,
                                 const Comparison& comparison, DrawnComparison& drawn) {
    const ExplorerState& state = *shared;
    drawn = DrawnComparison::transformationOf(shared);
    if (!comparison) return compareSides(state.scenario, state.transform);
    std::string property;
    try {
        const PropertyComparison c = comparison(state.scenario);
        property = c.property;
        SideBySide out = compare(state.scenario, c);
        drawn.comparison = c;
        return out;
    } catch (const InputError& e) {
        // A comparison this scenario cannot draw (a decode step of an ssm model): the
        // transformation, and why, so that the edit's checks still run.
        SideBySide out = compareSides(state.scenario, state.transform);
        out.warnings.insert(out.warnings.begin(),
                            property + ": " + e.what() + "; the views show the transformation");
        return out;
    }
}

void ComputeService::cancelChecks() {
    if (cancelled_) *cancelled_ = true;
}

void ComputeService::waitForDone() {
    pool_.waitForDone();
    viewsPool_.waitForDone();
}

template <class F>
void ComputeService::post(quint64 generation, F&& deliver) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, deliver = std::forward<F>(deliver)]() mutable {
            if (generation == generation_) deliver();
        },
        Qt::QueuedConnection);
}

template <class F>
void ComputeService::postViews(quint64 generation, quint64 viewsGeneration, F&& deliver) {
    post(generation, [this, viewsGeneration, deliver = std::forward<F>(deliver)]() mutable {
        if (viewsGeneration == viewsGeneration_) deliver();
    });
}

void ComputeService::run(quint64 generation, const std::shared_ptr<const ExplorerState>& shared,
                         const std::vector<CheckSpec>& checks, bool allChecks, int only,
                         bool drawViews, const std::shared_ptr<std::atomic<bool>>& cancelled,
                         const Comparison& comparison, quint64 viewsGeneration) {
    const ExplorerState& state = *shared;
    const auto stop = [&] { return cancelled->load() || generation != generation_; };
    // One model for all of them: reading a checkpoint's weights once, not once per check.
    const auto models = std::make_shared<ModelCache>(state.scenario);
    std::atomic<bool> wasCancelled = false;
    const auto runCheck = [&](std::size_t i) {
        post(generation, [this, i] { emit checkRunning(int(i)); });
        try {
            for (int waited = 0; waited < checkDelayMs_ && !stop(); waited += 5)
                QThread::msleep(5);
            auto reports = runChecks(state.scenario, {checks[i]}, 0, stop, models);
            post(generation,
                 [this, i, report = reports.front()] { emit checkReady(int(i), report); });
        } catch (const CancelledError&) {
            wasCancelled = true;
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            post(generation, [this, i, message] { emit checkFailed(int(i), message); });
        } catch (...) { // nothing may leave the thread that runs it
            post(generation, [this, i] { emit checkFailed(int(i), "an unknown error"); });
        }
        if (stop()) wasCancelled = true;
    };
    const auto finished = [&] {
        post(generation, [this, wasCancelled = wasCancelled.load()] {
            busy_ = false;
            emit checksFinished(wasCancelled);
            emit idle();
        });
    };
    if (only >= 0) {
        runCheck(std::size_t(only));
        finished();
        return;
    }
    try {
        if (drawViews) {
            DrawnComparison drawn;
            auto sides = std::make_shared<const SideBySide>(views(shared, comparison, drawn));
            postViews(generation, viewsGeneration, [this, sides, shared, drawn] {
                shown_ = shared;
                emit viewsReady(sides, drawn);
            });
            auto overview =
                std::make_shared<const HeadOverview>(headOverview(*sides, Side::Original));
            post(generation, [this, overview] { emit overviewReady(overview); });
        }
    } catch (const std::exception& e) {
        // The checks run all the same: each then says whether it fails too (most will, for the
        // same reason), rather than the panel keep the verdicts of the state before.
        const QString message = QString::fromStdString(e.what());
        post(generation, [this, message] { emit viewsFailed(message); });
    }

    const bool everyCheck = allChecks || (state.scenario.n() <= kAutomaticCheckLimit &&
                                          checksEveryPropertyOnEdit(state.scenario));
    const std::size_t automatic = everyCheck ? checks.size() : state.scenario.checks.size();
    QStringList names, deferred;
    for (std::size_t i = 0; i < checks.size(); ++i)
        (i < automatic ? names : deferred) << QString::fromStdString(checks[i].name);
    names << deferred;
    post(generation, [this, names, deferred] { emit checksStarted(names, deferred); });
    // Two checks at a time where they compute on the CPU, each still spreading its forwards over
    // the threads (two teams then share the cores: measured faster than one check at a time):
    // the parts of one that run on one thread (its reference forward, its report, a sweep's
    // last forwards) leave a core idle, which the other's work then fills. A device is driven
    // from one thread: there the checks go one by one. The reports do not depend on it, only the
    // order in which they arrive.
    std::atomic<std::size_t> next = 0; // the first check not yet taken
    const auto runChecksInTurn = [&] {
        for (std::size_t i = next++; i < automatic && !wasCancelled; i = next++)
            runCheck(i);
    };
    {
        std::optional<std::jthread> beside; // joined before the locals it uses are gone
        if (automatic > 1 && !computesOnDevice(state.scenario.backend, state.scenario.precision))
            try {
                beside.emplace(runChecksInTurn);
            } catch (const std::system_error&) { // no thread to be had: one by one
            }
        runChecksInTurn();
    }
    finished();
}

} // namespace attnlab::ui
