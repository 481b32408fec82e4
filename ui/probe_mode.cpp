// SPDX-License-Identifier: GPL-3.0-or-later
// Probe mode of the main window (probe_mode.h).
#include "ui/probe_mode.h"

#include "ui/document/compute_service.h"
#include "ui/document/probe_service.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/model_editor.h"
#include "ui/main_window.h"
#include "ui/panels/error_banner.h"
#include "ui/panels/probe_banner.h"
#include "ui/panels/probe_dialog.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"

#include <QStatusBar>

namespace attnlab::ui {

namespace {

template <class M>
bool sameMatrix(const std::optional<M>& a, const std::optional<M>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a ||
           (a->rows() == b->rows() && a->cols() == b->cols() && (a->array() == b->array()).all());
}

/// The report the Dependencies page draws: the one that compares the measured map with the
/// intended mask, else the first that measured it.
const PropertyReport* probeDependencyReport(const ProbeResult& result) {
    const PropertyReport* measured = nullptr;
    for (const PropertyReport& r : result.reports) {
        if (!r.details.contains("dependency_map")) continue;
        if (r.details.contains("intended_map")) return &r;
        if (!measured) measured = &r;
    }
    return measured;
}

constexpr auto kProbeMaps = ViewsPanel::DependencySource::Probe;

} // namespace

ProbeMode::ProbeMode(MainWindow* window)
    : QObject(window), window_(window), service_(new ProbeService(this)), banner_(new ProbeBanner) {
    banner_->hide();
    connect(banner_, &ProbeBanner::stopRequested, this, &ProbeMode::stop);
    PropertyPanel* panel = window->properties();
    connect(service_, &ProbeService::started, panel, [panel](const QStringList& names) {
        panel->start(names);
        panel->setProgress(0, 1, "calling the program…"); // its calls are counted once planned
    });
    connect(service_, &ProbeService::progress, this, [this, panel](int done, int calls, long seqs) {
        const QString text = QString("call %1 of %2 (%3 sequences)").arg(done).arg(calls).arg(seqs);
        panel->setProgress(done, calls, text);
        banner_->setStatus(text);
    });
    connect(service_, &ProbeService::finished, this, &ProbeMode::showResult);
    connect(service_, &ProbeService::failed, this, &ProbeMode::showFailure);
    connect(service_, &ProbeService::cancelled, this, [this] {
        showStopped("cancelled", "Probe cancelled. File › Probe Program… (or, in persistent "
                                 "mode, a token edit) probes again.");
    });
    ScenarioDocument* document = window->document();
    connect(document, &ScenarioDocument::replaced, this, [this] {
        if (!on_) return;
        leave(); // a file opened never runs the program
        window_->statusBar()->showMessage("Probing stopped: another scenario was opened. File › "
                                          "Probe Program… probes it.",
                                          10000);
    });
    connect(document, &ScenarioDocument::changed, this, &ProbeMode::documentChanged);
}

ProbeDialog* ProbeMode::choose() {
    const Scenario& scenario = window_->document()->scenario();
    auto* dialog = new ProbeDialog(scenario.n(), scenario.d(),
                                   window_->modelEditor()->currentLayer(), window_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { start(dialog->choice()); });
    dialog->open();
    return dialog;
}

void ProbeMode::start(const ProbeChoice& choice) {
    choice_ = choice;
    banner_->setCommand(choice.command);
    banner_->show();
    PropertyPanel* panel = window_->properties();
    if (!on_) {
        on_ = true;
        panel->setModelParameters(false);
        emit switched(true);
    }
    panel->start({}); // the model's rows, or another program's, are not this probe's
    if (auto settings = settingsNow()) run(std::move(*settings));
}

void ProbeMode::cancel() {
    service_->cancel();
}

void ProbeMode::leave() {
    if (!on_) return;
    on_ = false;
    service_->stop();
    banner_->hide();
    result_.reset();
    probedInput_.reset();
    probedMask_.reset();
    window_->properties()->setModelParameters(true);
    window_->views()->setDependencyReport(nullptr);
    emit switched(false);
}

void ProbeMode::stop() {
    if (!on_) return;
    leave();
    window_->compute()->request(window_->document()->sharedState()); // the model's checks again
}

std::optional<ProbeSettings> ProbeMode::settingsNow() {
    try {
        return probeSettings(choice_, window_->document()->state());
    } catch (const std::exception& e) {
        service_->stop(); // a probe of an earlier state must not arrive as this one's
        probedInput_.reset();
        probedMask_.reset();
        showFailure(QString::fromStdString(e.what()));
        return std::nullopt;
    }
}

void ProbeMode::run(ProbeSettings settings) {
    probedInput_ = settings.request.input;
    probedMask_ = settings.request.maskMatrix;
    result_.reset();
    window_->views()->setDependencyReport(nullptr, kProbeMaps);
    banner_->setStatus("probing…");
    service_->start(std::move(settings));
}

void ProbeMode::documentChanged() {
    if (!on_) return;
    std::optional<ProbeSettings> settings = settingsNow();
    if (!settings || (sameMatrix(settings->request.input, probedInput_) &&
                      sameMatrix(settings->request.maskMatrix, probedMask_)))
        return;
    if (choice_.persistent) {
        run(std::move(*settings));
        return;
    }
    service_->stop();
    probedInput_ = settings->request.input;
    probedMask_ = settings->request.maskMatrix;
    showStopped("out of date", "The tokens or the mask changed since this probe: File › Probe "
                               "Program… probes them (in persistent mode every edit is probed).");
}

void ProbeMode::showResult(std::shared_ptr<const ProbeResult> result) {
    result_ = std::move(result);
    PropertyPanel* panel = window_->properties();
    window_->views()->setDependencyReport(probeDependencyReport(*result_), kProbeMaps);
    for (std::size_t i = 0; i < result_->reports.size(); ++i)
        panel->setReport(int(i), result_->reports[i]);
    panel->finish(false);
    panel->selectFirstFailure();
    QString status = QString("%1 calls, %2 sequences").arg(result_->calls).arg(result_->sequences);
    if (choice_.persistent && choice_.input == ProbeChoice::Input::Tokens)
        status += "; a token edit probes again";
    banner_->setStatus(status);
}

void ProbeMode::showStopped(const QString& verdict, const QString& why) {
    result_.reset();
    window_->properties()->stopRun(verdict, why);
    window_->views()->setDependencyReport(nullptr, kProbeMaps);
    banner_->setStatus(verdict);
}

void ProbeMode::showFailure(const QString& message) {
    showStopped("failed", "The probe failed: the message is at the bottom of the window.");
    window_->errorBanner()->showMessage("The probe failed: " + message +
                                        "\nThe scenario is unchanged. Correct the program or the "
                                        "probe's settings, then edit a token or choose File › "
                                        "Probe Program….");
    window_->statusBar()->showMessage("The probe failed", 8000);
}

} // namespace attnlab::ui
