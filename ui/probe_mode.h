// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's probe mode: File > Probe Program… (probe_dialog.h) or `attnlab --probe`
// starts probing the user's program (probe_service.h). While it is on, the verdict panel shows
// the probe's properties instead of the model's checks (the model's views keep following the
// edits), its progress counts the program's calls, the Dependencies page shows the measured map
// against the intended mask, a banner above the verdicts names the program and offers Stop
// probing, and every edit of what the probe reads (the tokens, the mask editor's mask) probes
// again, the newest edit winning. A failed probe shows the program's message and changes nothing
// in the scenario. Opening a scenario ends probe mode: a program only ever starts from the
// user's Run (or the command line that asked for it).
#pragma once

#include "ui/document/probe_choice.h"

#include <QObject>

#include <memory>
#include <optional>

namespace attnlab {
struct ProbeResult;
struct PropertyReport;
} // namespace attnlab

namespace attnlab::ui {

class MainWindow;
class ProbeBanner;
class ProbeDialog;
class ProbeService;

class ProbeMode : public QObject {
    Q_OBJECT
public:
    /// Wires itself to `window`'s document, verdict panel and views; its banner is for the
    /// window to place.
    explicit ProbeMode(MainWindow* window);

    bool isOn() const { return on_; }
    /// Opens the dialog (its fields filled with the last program); its Run starts probing.
    ProbeDialog* choose();
    /// Enters probe mode (or changes what it probes) and probes the document's current state.
    void start(const ProbeChoice& choice);
    /// Leaves probe mode: the program is stopped and the panel shows the model's checks again.
    void stop();
    /// Cancels the running probe (its program's process group is ended); probe mode stays.
    void cancel();

    /// The newest probe's result; null while it runs, or when it failed or was cancelled.
    std::shared_ptr<const attnlab::ProbeResult> result() const { return result_; }
    ProbeService* service() const { return service_; }
    ProbeBanner* banner() const { return banner_; }

signals:
    /// Probe mode was entered (true) or left.
    void switched(bool on);

private:
    /// The settings of a probe of the document's current state; none when it cannot be probed
    /// (the failure is shown).
    std::optional<ProbeSettings> settingsNow();
    /// Probes with `settings`, superseding the running probe.
    void run(ProbeSettings settings);
    /// After an edit: probes again (persistent mode) or marks the results out of date, when what
    /// the probe reads of the document (the tokens, the mask editor's mask) changed.
    void documentChanged();
    /// Leaves probe mode without asking for the model's checks (a new scenario brings them).
    void leave();
    void showResult(std::shared_ptr<const attnlab::ProbeResult> result);
    /// A probe that gave no result: the rows say `verdict`, nothing measured is shown.
    void showStopped(const QString& verdict, const QString& why);
    void showFailure(const QString& message);

    MainWindow* window_;
    ProbeService* service_;
    ProbeBanner* banner_;
    ProbeChoice choice_;
    bool on_ = false;
    // What the newest probe read of the document: its input and the mask editor's mask.
    std::optional<Sequence> probedInput_;
    std::optional<BoolMatrix> probedMask_;
    std::shared_ptr<const attnlab::ProbeResult> result_;
};

} // namespace attnlab::ui
