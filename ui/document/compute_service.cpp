// SPDX-License-Identifier: GPL-3.0-or-later
// The worker behind the explorer's views and verdicts.
#include "ui/document/compute_service.h"

#include "core/backend/registry.h"
#include "core/base/error.h"
#include "core/checks/check_registry.h"
#include "core/checks/model_cache.h"
#include "core/explore/resource_limits.h"

#include <QMetaObject>
#include <QScopeGuard>
#include <QThread>

#include <atomic>
#include <optional>
#include <system_error>
#include <thread>

namespace attnlab::ui {

ComputeService::Checks::Checks(quint64 g, std::shared_ptr<const ExplorerState> s, std::size_t n)
    : generation(g), state(std::move(s)), models(std::make_shared<ModelCache>(state->scenario)),
      versions(std::make_unique<std::atomic<unsigned>[]>(n)), count(n) {}

ComputeService::ComputeService(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1); // one request at a time; superseded ones are skipped
    viewsPool_.setMaxThreadCount(1);
    rerunPool_.setMaxThreadCount(1);
    qRegisterMetaType<std::shared_ptr<const SideBySide>>();
    qRegisterMetaType<std::shared_ptr<const HeadOverview>>();
    qRegisterMetaType<PropertyReport>();
}

ComputeService::~ComputeService() {
    if (checks_) ++checks_->cancels;
    ++generation_;
    waitForDone();
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
    if (!checks_) return;
    const std::vector<CheckSpec> specs = checks();
    for (std::size_t i = 0; i < specs.size() && i < checks_->count; ++i)
        if (specs[i].name == property.toStdString()) rerun(i, specs[i]);
}

void ComputeService::rerun(std::size_t index, const CheckSpec& spec) {
    const unsigned version = ++checks_->versions[index]; // drops the verdict under way
    emit checkRestarted(int(index));
    if (jobs_++ == 0) jobsCancelled_ = false; // a cancel before it is not its own
    // It runs even after a cancel of the checks before it; a cancel from now on stops it.
    rerunPool_.start(
        [this, checks = checks_, index, spec, version, cancels = unsigned(checks_->cancels)] {
            jobDone(*checks, runCheck(*checks, index, spec, version, cancels));
        });
}

void ComputeService::request(std::shared_ptr<const ExplorerState> state) {
    schedule(std::move(state), false);
}

void ComputeService::runAllChecks() {
    if (last_) schedule(last_, true, shown_.lock() != last_);
}

void ComputeService::schedule(std::shared_ptr<const ExplorerState> state, bool allChecks,
                              bool views) {
    last_ = state;
    lastAll_ = allChecks;
    if (checks_) ++checks_->cancels;
    const std::vector<CheckSpec> specs = checks();
    checks_ = std::make_shared<Checks>(++generation_, std::move(state), specs.size());
    jobs_ = 1;
    jobsCancelled_ = false;
    pool_.start([this, checks = checks_, specs, allChecks, views, comparison = comparison_,
                 viewsGeneration = quint64(viewsGeneration_)] {
        if (checks->generation == generation_)
            run(checks, specs, allChecks, views, comparison, viewsGeneration);
    });
}

void ComputeService::setComparison(Comparison comparison, bool redraw) {
    comparison_ = std::move(comparison);
    const quint64 viewsGeneration = ++viewsGeneration_;
    if (!redraw || !last_) return;
    const quint64 generation = generation_;
    ++redraws_;
    viewsPool_.start([this, generation, viewsGeneration, state = last_, c = comparison_] {
        // Delivered, superseded or failed, the redraw is over once the GUI thread runs this.
        const auto over = qScopeGuard([this] {
            QMetaObject::invokeMethod(
                this,
                [this] {
                    if (--redraws_ == 0 && jobs_ == 0) emit idle();
                },
                Qt::QueuedConnection);
        });
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
    if (checks_) ++checks_->cancels;
}

void ComputeService::waitForDone() {
    pool_.waitForDone();
    rerunPool_.waitForDone();
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

template <class F>
void ComputeService::postCheck(const Checks& checks, std::size_t index, unsigned version,
                               F&& deliver) {
    // Delivered while the generation is the newest: checks_ is then these checks.
    post(checks.generation, [this, index, version, deliver = std::forward<F>(deliver)]() mutable {
        if (checks_->versions[index] == version) deliver();
    });
}

bool ComputeService::runCheck(const Checks& checks, std::size_t index, const CheckSpec& spec,
                              unsigned version, unsigned cancels) {
    const auto cancelled = [&] {
        return checks.cancels != cancels || checks.generation != generation_;
    };
    const auto stop = [&] { return cancelled() || checks.versions[index] != version; };
    if (stop()) return cancelled();
    const int i = int(index);
    postCheck(checks, index, version, [this, i] { emit checkRunning(i); });
    try {
        for (int waited = 0; waited < checkDelayMs_ && !stop(); waited += 5)
            QThread::msleep(5);
        auto reports = runChecks(checks.state->scenario, {spec}, 0, stop, checks.models);
        postCheck(checks, index, version,
                  [this, i, report = reports.front()] { emit checkReady(i, report); });
    } catch (const CancelledError&) {
    } catch (const std::exception& e) {
        const QString message = QString::fromStdString(e.what());
        postCheck(checks, index, version, [this, i, message] { emit checkFailed(i, message); });
    } catch (...) { // nothing may leave the thread that runs it
        postCheck(checks, index, version, [this, i] { emit checkFailed(i, "an unknown error"); });
    }
    return cancelled();
}

void ComputeService::jobDone(const Checks& checks, bool cancelled) {
    post(checks.generation, [this, cancelled] {
        jobsCancelled_ = jobsCancelled_ || cancelled;
        if (--jobs_ > 0) return;
        emit checksFinished(jobsCancelled_);
        if (redraws_ == 0) emit idle();
    });
}

void ComputeService::run(const std::shared_ptr<Checks>& shared, const std::vector<CheckSpec>& specs,
                         bool allChecks, bool drawViews, const Comparison& comparison,
                         quint64 viewsGeneration) {
    const Checks& checks = *shared;
    const quint64 generation = checks.generation;
    const ExplorerState& state = *checks.state;
    try {
        if (drawViews) {
            DrawnComparison drawn;
            auto sides = std::make_shared<const SideBySide>(views(checks.state, comparison, drawn));
            postViews(generation, viewsGeneration, [this, sides, s = checks.state, drawn] {
                shown_ = s;
                emit viewsReady(sides, drawn);
            });
            try { // the views delivered stay whatever happens to their thumbnails
                auto overview =
                    std::make_shared<const HeadOverview>(headOverview(*sides, Side::Original));
                post(generation, [this, overview] { emit overviewReady(overview); });
            } catch (const std::exception&) {
                post(generation, [this] { emit overviewReady(nullptr); });
            }
        }
    } catch (const std::exception& e) {
        // The checks run all the same: each then says whether it fails too (most will, for the
        // same reason), rather than the panel keep the verdicts of the state before.
        const QString message = QString::fromStdString(e.what());
        post(generation, [this, message] { emit viewsFailed(message); });
    }

    const bool everyCheck = allChecks || (state.scenario.n() <= kAutomaticCheckLimit &&
                                          checksEveryPropertyOnEdit(state.scenario));
    const std::size_t automatic = everyCheck ? specs.size() : state.scenario.checks.size();
    QStringList names, deferred;
    for (std::size_t i = 0; i < specs.size(); ++i)
        (i < automatic ? names : deferred) << QString::fromStdString(specs[i].name);
    names << deferred;
    post(generation, [this, names, deferred] { emit checksStarted(names, deferred); });
    // Two checks at a time where they compute on the CPU, each still spreading its forwards over
    // the threads (two teams then share the cores: measured faster than one check at a time):
    // the parts of one that run on one thread (its reference forward, its report, a sweep's
    // last forwards) leave a core idle, which the other's work then fills. A device is driven
    // from one thread: there the checks go one by one. The reports do not depend on it, only the
    // order in which they arrive. A check whose parameters changed is rerun's, not the pass's.
    std::atomic<std::size_t> next = 0; // the first check not yet taken
    std::atomic<bool> wasCancelled = false;
    const auto runChecksInTurn = [&] {
        for (std::size_t i = next++; i < automatic && !wasCancelled; i = next++)
            if (runCheck(checks, i, specs[i], 0, 0)) wasCancelled = true;
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
    jobDone(checks, wasCancelled);
}

} // namespace attnlab::ui
