// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window: input editors on the left, side-by-side views in the centre, verdicts and
// the scenario's notes on the right; menus for files, recent files, presets, undo/redo and export;
// window state remembered between runs. It wires the document, the worker and the panels together.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <functional>
#include <optional>

class QMenu;
class QSplitter;
class QTabWidget;
class QTextBrowser;

namespace attnlab {
struct PropertyReport;
}

namespace attnlab::ui {

class Autosave;
class ComparisonChoice;
class ComputeService;
class ErrorBanner;
class HeatmapView;
class HelpWindow;
class ModelImport;
class ModelEditor;
class ProbeMode;
class PropertyPanel;
class ScenarioDocument;
class TokensEditor;
class TransformEditor;
class ViewsPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ScenarioDocument* document() const { return document_; }
    ComputeService* compute() const { return compute_; }
    /// Whether the views draw the selected property's comparison or the transformation.
    ComparisonChoice* comparison() const { return comparison_; }
    TokensEditor* tokensEditor() const { return tokens_; }
    ModelEditor* modelEditor() const { return model_; }
    TransformEditor* transformEditor() const { return transform_; }
    ViewsPanel* views() const { return views_; }
    PropertyPanel* properties() const { return properties_; }
    /// Probing another program (File > Probe Program…): the panel and the Dependencies page
    /// then show its verdicts and maps.
    ProbeMode* probe() const { return probe_; }
    /// The visible error line ("" when there is none).
    QString errorText() const;
    ErrorBanner* errorBanner() const { return error_; }
    /// The input editors (tokens, model, mask, transform): the left panel, which View → Editors
    /// shows and hides.
    QTabWidget* inputs() const { return inputs_; }
    /// Shows the editors' tab that holds `editor` (each sits in a scroll area of its tab).
    void showEditorTab(QWidget* editor);
    QSplitter* splitter() const { return splitter_; }

    bool openSource(const QString& source);
    /// Imports the Hugging Face checkpoint in `directory` in the background (File → Open model),
    /// on `text` when given; the scenario replaces the current one when it is ready, a problem
    /// shows in the error line and leaves the scenario as it was.
    void openModel(const QString& directory, const std::optional<QString>& text = std::nullopt);
    ModelImport* modelImport() const { return import_; }
    /// Saves to `path`, with `.json` added when it has no suffix (scenarioSavePath).
    bool saveTo(const QString& path);
    /// Writes every view of the current layer and head as `<dir>/<title>.<format>`.
    void exportViews(const QString& directory, const QString& format);
    void exportMatrices(const QString& directory, const QString& format);
    /// Writes the side-by-side page of the shown layer and head as one figure (.png, .svg, .pdf by
    /// suffix): all three rows (`row` -1) or one (a ViewsPanel::Row), with the selected property's
    /// verdict. Asks before replacing a file; returns whether it wrote (a problem shows in the
    /// error line).
    bool exportFigure(const QString& path, int row = -1);
    /// The name exportFigure suggests: "<scenario>_L<layer>_H<head>[_<row>][_<property>].svg".
    QString figureFileName(int row = -1) const;
    /// Writes the verdicts as JSON (the CLI's shape) or Markdown, by suffix.
    void exportVerdicts(const QString& path);

    /// When the previous session left unsaved work behind, asks `accept` (default: a dialog)
    /// whether to restore it, restores or discards it, then starts autosaving. Returns whether
    /// it restored.
    bool offerRecovery(const std::function<bool(const QString& when)>& accept = {});
    Autosave* autosave() const { return autosave_; }
    /// Opens the help window at `target` (a document of docs/, optionally `#slug`), raising it.
    HelpWindow* showHelp(const QString& target);
    /// The guide's section about the panel holding `focus` (F1 there opens it), else the guide.
    QString guideSectionFor(const QWidget* focus) const;

protected:
    void closeEvent(QCloseEvent* event) override;
    /// An Esc that no popup, editor or field consumed: closes the error line, else cancels the
    /// running checks (or probe).
    void keyPressEvent(QKeyEvent* event) override;

private:
    /// The rows Export row… offers, in ViewsPanel::Row order.
    static inline const QStringList kFigureRows = {"S", "A", "output"};
    void buildMenus();
    /// The size, place and panel widths of the last run, within this screen (main_window_layout).
    void restoreLayout();
    /// Remembers them for the next run.
    void saveLayout();
    void rebuildRecentMenu();
    void addRecent(const QString& path);
    void showError(const QString& message);
    /// Cancels the running probe in probe mode, else the model's running checks.
    void cancelRunning();
    /// Asks where to save the scenario ("" when the user cancels).
    QString askSavePath(const QString& title);
    void updateTitle();
    /// Asks to save unsaved changes; false when the user cancels.
    bool confirmDiscard();
    /// Writes each non-empty view with `write` as
    /// <directory>/<scenario>_L<l>_H<h>_<title>.<format>, after asking whether to replace the files
    /// that exist.
    void exportEachView(const QString& directory, const QString& format, const QString& what,
                        const std::function<void(HeatmapView*, const QString&)>& write);
    /// Says that an export waits for the new input's maps (the veiled ones are the previous
    /// input's).
    void showStillComputing();
    /// The report of the property selected in the verdict list, if any.
    const attnlab::PropertyReport* selectedReport() const;

    ScenarioDocument* document_;
    ComputeService* compute_;
    ComparisonChoice* comparison_;
    // Made after the connection that requests the computation of each edit (the constructor).
    TokensEditor* tokens_ = nullptr;
    ModelEditor* model_ = nullptr;
    TransformEditor* transform_ = nullptr;
    ViewsPanel* views_;
    PropertyPanel* properties_;
    QTextBrowser* notes_;
    QString shownNotes_; // the HTML notes_ shows
    QTabWidget* inputs_;
    QSplitter* splitter_;
    // The editors' visibility and the panels' widths when presentation mode began.
    bool editorsBeforePresentation_ = true;
    QList<int> sizesBeforePresentation_;
    ErrorBanner* error_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    HelpWindow* help_ = nullptr; // made when first asked for
    Autosave* autosave_;
    ModelImport* import_;
    ProbeMode* probe_ = nullptr; // made after the connections its reactions must follow
};

} // namespace attnlab::ui
