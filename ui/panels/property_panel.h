// SPDX-License-Identifier: GPL-3.0-or-later
// The right-hand panel: a live verdict per property (holds / fails / not applicable, deviation,
// tolerance, exact or float) filled in as the worker finishes each one, with progress and a
// cancel button. Selecting a row shows its parameters (check_parameters_form.h), its explanation
// and witness and asks the views to outline the witness cells; "smallest witness" switches to the
// shrunk form.
#pragma once

#include "core/checks/property_report.h"

#include <QFontMetrics>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace attnlab::ui {

class CheckParametersForm;
class ComputeService;

class PropertyPanel : public QWidget {
    Q_OBJECT
public:
    explicit PropertyPanel(QWidget* parent = nullptr);

    /// New rows for `names`; those in `deferred` are not run until "Run all" is pressed.
    void start(const QStringList& names, const QStringList& deferred = {});
    void setReport(int index, const attnlab::PropertyReport& report);
    void setFailed(int index, const QString& message);
    void finish(bool cancelled);
    /// The check at `index` started: the progress names it ("3 / 15: locality").
    void setRunning(int index);
    /// The check at `index` alone runs again (its parameters changed).
    void restart(int index);
    /// Progress counted in other steps than verdicts (a probe's calls): `done` of `total`,
    /// described by `text`.
    void setProgress(int done, int total, const QString& text);
    /// Ends a run that gave no verdicts (a probe that failed or was cancelled): every row says
    /// `verdict`, none keeps one of an earlier run, and the status line says `why`.
    void stopRun(const QString& verdict, const QString& why);
    /// With nothing selected yet, selects the first failing property (a first look at why);
    /// returns its name ("" when it selected nothing).
    QString selectFirstFailure();
    /// The input changed: every verdict and the details of the previous one are cleared to
    /// "computing…" until the new verdicts arrive.
    void markStale();
    /// A new scenario: nothing selected, the full witness (not the shrunk one).
    void forgetSelection();
    /// How much presentation mode enlarges the verdicts' text (less than the maps': the table
    /// keeps its four columns beside them).
    static constexpr double kPresentationScale = 1.3;
    /// Enlarges every text of the panel by kPresentationScale (true) or back to normal (false).
    void setPresentation(bool on);
    /// Shows the selected property's parameters as `compute` runs them, and sends the ones set
    /// in the form to it.
    void showParametersOf(ComputeService* compute);
    /// Whether the rows are the model's checks, whose parameters the form shows (true), or a
    /// probe's properties, which it leaves alone.
    void setModelParameters(bool shown);

    /// The reports received so far, in panel order.
    std::vector<attnlab::PropertyReport> reports() const;
    const attnlab::PropertyReport* report(const QString& name) const;
    /// Verdict text of the row called `name` ("holds", "fails", "not applicable", "computing…").
    QString verdictText(const QString& name) const;
    /// Selects the row of `name` (as a click does).
    void select(const QString& name);
    /// The name of the property a row of tree() stands for (the row shows its display name);
    /// "" for none.
    static QString propertyOf(const QTreeWidgetItem* row);
    QTreeWidget* tree() const { return tree_; }
    QCheckBox* shrinkBox() const { return shrink_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* runAllButton() const { return runAll_; }
    QProgressBar* progressBar() const { return progress_; }
    CheckParametersForm* parametersForm() const { return parameters_; }

signals:
    void witnessSelected(const std::vector<attnlab::WitnessCell>& cells);
    void cancelRequested();
    void runAllRequested();
    /// A link to the documentation was followed: `target` is a document of docs/ with its slug.
    void helpRequested(const QString& target);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The mode (exact or float) is in the tolerance's tooltip and the details: four columns fit
    // the panel beside the views at 1280 px.
    enum Col { Name, VerdictCol, Deviation, Tolerance, ColumnCount };

    void showSelected();
    /// The selected row's report, if it has one.
    const attnlab::PropertyReport* selectedReport() const;
    void advanceProgress();
    /// How fitColumns may change a column: to fit its texts exactly, or only wider. While the
    /// checks run (start, each verdict) columns only widen: the values emptied at the start and
    /// filled verdict by verdict would resize them several times per edit, and each resize
    /// repaints the whole tree and its header. The end of the run, a resize or a new font fit
    /// them exactly.
    enum class Fit { Exact, Widen };
    /// Fits the value columns to their texts; the name column takes the rest. Measures every
    /// row's texts and the headers, or, given `changedRow` (a verdict), that row's texts alone:
    /// measuring each text shapes it, a tenth of the GUI thread's time per edit when every row
    /// was measured on each verdict.
    void fitColumns(Fit how = Fit::Exact, int changedRow = -1);
    /// The widths row `row`'s texts need in `metrics`, each with `margins`, into textWidths_.
    void measureRow(int row, const QFontMetrics& metrics, int margins);

    QTreeWidget* tree_;
    CheckParametersForm* parameters_;
    QTextBrowser* details_;
    QCheckBox* shrink_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QPushButton* runAll_;
    QLabel* status_;
    bool modelParameters_ = true;
    bool showJson_ = false; // the details show the report's JSON under its words
    std::vector<std::optional<attnlab::PropertyReport>> reports_;
    std::vector<std::array<int, ColumnCount>> textWidths_; // per row, as last measured
    std::array<int, ColumnCount> headerWidths_{};          // the whole headers' size hints
    std::array<int, ColumnCount> shortHeaderWidths_{};     // the short headers' size hints
};

} // namespace attnlab::ui
