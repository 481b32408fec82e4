// SPDX-License-Identifier: GPL-3.0-or-later
// Recomputation off the GUI thread. Every request supersedes the previous one: queued stale work is
// skipped, a running check is cancelled, and results of a superseded request are dropped, so the
// newest edit always wins and the window never waits. Views come first, then the layer x head
// overview, then one verdict at a time. New parameters for one property run that property alone
// again, beside the request's other checks, which keep running or keep their verdicts. The views
// draw the state's transformation, or a comparison chosen instead (a selected property's,
// core/explore/property_comparison.h).
#pragma once

#include "core/checks/property_check.h"
#include "core/explore/head_overview.h"
#include "core/explore/panel_checks.h"
#include "core/explore/property_comparison.h"
#include "core/explore/side_by_side.h"
#include "ui/document/drawn_comparison.h"
#include "ui/document/scenario_document.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>

namespace attnlab::ui {

class ComputeService : public QObject {
    Q_OBJECT
public:
    explicit ComputeService(QObject* parent = nullptr);
    ~ComputeService() override;

    /// Schedules views and verdicts for `state`, superseding any earlier request.
    void request(std::shared_ptr<const ExplorerState> state);
    /// Stops the verdicts of the current request (views already delivered stay).
    void cancelChecks();
    /// What the views draw of a scenario instead of the state's transformation (empty: the
    /// transformation), from the next request on; with `redraw`, the current state's views are
    /// computed again now, on a thread of their own, while its checks keep running.
    using Comparison = std::function<PropertyComparison(const Scenario&)>;
    void setComparison(Comparison comparison, bool redraw);
    /// The checks the panel shows for the newest request, with the parameters they run with
    /// (panel_checks.h).
    std::vector<CheckSpec> checks() const;
    /// The parameters set in the window for `property` (a JSON object; absent keys are "auto").
    nlohmann::json chosenParameters(const QString& property) const;
    /// Forgets every parameter set in the window (a new scenario starts on the defaults).
    void clearChosenParameters() { chosen_.clear(); }
    /// Sets them and runs that property alone again: its verdict under way, if any, is dropped;
    /// the other checks keep running, and keep the verdicts they gave.
    void setChosenParameters(const QString& property, const nlohmann::json& params);
    /// Tests: each check waits `ms` before it starts (cancellable), so that checks are seen
    /// running.
    void setCheckDelay(int ms) { checkDelayMs_ = ms; }
    /// Up to this many tokens, and while n forward passes stay within the budget of
    /// checksEveryPropertyOnEdit (resource_limits.h), every property runs on each edit; else only
    /// the scenario's own checks do, and the rest wait for `runAllChecks` (some sweep n
    /// perturbations of n tokens).
    static constexpr int kAutomaticCheckLimit = 128;
    /// Runs every property of the panel for the current state, whatever its size (without
    /// computing its views again when they were delivered: the progress shows at once).
    void runAllChecks();
    /// Whether a request's views and verdicts, or a comparison's views, are still coming.
    bool isBusy() const { return jobs_ > 0 || redraws_ > 0; }
    /// Blocks until the worker is idle (tests and shutdown).
    void waitForDone();

signals:
    /// The views of the newest state, with what they draw (drawn_comparison.h).
    void viewsReady(std::shared_ptr<const SideBySide> views, const DrawnComparison& drawn);
    /// Every layer and head of the original input as thumbnails (after viewsReady).
    void overviewReady(std::shared_ptr<const HeadOverview> overview);
    void viewsFailed(const QString& message);
    /// The panel's properties; `deferred` lists those not run automatically (large n).
    void checksStarted(const QStringList& names, const QStringList& deferred);
    /// The check at `index` starts computing.
    void checkRunning(int index);
    /// The check at `index` alone runs again (its parameters changed); the others keep theirs.
    void checkRestarted(int index);
    void checkReady(int index, const PropertyReport& report);
    void checkFailed(int index, const QString& message);
    void checksFinished(bool cancelled);
    /// The newest request has been fully answered (or cancelled).
    void idle();

private:
    /// One request's checks, shared by its pass over them and the runs of one check again: how
    /// often they were cancelled (a job stops when it differs from the count it started on), the
    /// models they share and, per check, the version of its parameters (0: those the pass runs
    /// with; each change adds one, and only that version's verdict counts).
    struct Checks {
        Checks(quint64 generation, std::shared_ptr<const ExplorerState> state, std::size_t count);
        quint64 generation;
        std::shared_ptr<const ExplorerState> state;
        std::atomic<unsigned> cancels = 0;
        std::shared_ptr<ModelCache> models; // one model for all: a checkpoint is read once
        std::unique_ptr<std::atomic<unsigned>[]> versions;
        std::size_t count;
    };

    /// The checks after the views unless `views` is false (they are on screen already).
    void schedule(std::shared_ptr<const ExplorerState> state, bool allChecks, bool views = true);
    void run(const std::shared_ptr<Checks>& checks, const std::vector<CheckSpec>& specs,
             bool allChecks, bool drawViews, const Comparison& comparison, quint64 viewsGeneration);
    /// Runs check `index` again with `spec`, its parameters' newest version, beside the pass.
    void rerun(std::size_t index, const CheckSpec& spec);
    /// Runs check `index` as `spec` says and delivers its verdict unless a newer version of its
    /// parameters superseded `version`. Returns whether it was cancelled (after `cancels`
    /// cancels) or the request superseded.
    bool runCheck(const Checks& checks, std::size_t index, const CheckSpec& spec, unsigned version,
                  unsigned cancels);
    /// A pass or a rerun of `checks` has ended; the last one ending finishes the request.
    void jobDone(const Checks& checks, bool cancelled);
    /// Runs `deliver` on the GUI thread if check `index`'s parameters are still at `version`.
    template <class F>
    void postCheck(const Checks& checks, std::size_t index, unsigned version, F&& deliver);
    /// The views of `state`: `comparison`'s when there is one, else its transformation's; `drawn`
    /// says which.
    static SideBySide views(const std::shared_ptr<const ExplorerState>& state,
                            const Comparison& comparison, DrawnComparison& drawn);
    /// Runs `deliver` on the GUI thread if `generation` and `viewsGeneration` are the newest.
    template <class F>
    void postViews(quint64 generation, quint64 viewsGeneration, F&& deliver);
    /// Runs `deliver` on the GUI thread if `generation` is still the newest.
    template <class F>
    void post(quint64 generation, F&& deliver);

    QThreadPool pool_;
    QThreadPool viewsPool_; // a new comparison's views, beside the checks of pool_
    QThreadPool rerunPool_; // one check run again with new parameters, beside pool_'s
    std::atomic<quint64> generation_{0};
    std::atomic<quint64> viewsGeneration_{0}; // advanced by each new comparison
    Comparison comparison_;
    std::shared_ptr<Checks> checks_; // the newest request's
    int jobs_ = 0;                   // its pass and reruns under way (> 0: busy)
    bool jobsCancelled_ = false;     // whether one of them was cancelled
    int redraws_ = 0;      // comparisons' views being computed (setComparison with redraw)
    bool lastAll_ = false; // the newest request ran every check ("Run all")
    ChosenParameters chosen_;
    std::weak_ptr<const ExplorerState> shown_; // the state whose views were delivered
    std::atomic<int> checkDelayMs_{0};
    std::shared_ptr<const ExplorerState>
        last_; // the newest request's state, shared with its worker
};

} // namespace attnlab::ui
