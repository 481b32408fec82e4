// The explorer window: input editors on the left, side-by-side views in the centre, verdicts and
// the scenario's notes on the right; menus for files, recent files, presets, undo/redo and export;
// window state remembered between runs. It wires the document, the worker and the panels together.
#pragma once

#include <QMainWindow>

#include <functional>
#include <optional>

class QLabel;
class QMenu;
class QTextBrowser;

namespace attnlab::ui {

class Autosave;
class ComparisonChoice;
class ComputeService;
class HelpWindow;
class ModelImport;
class ModelEditor;
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
    /// The visible error line ("" when there is none).
    QString errorText() const;

    bool openSource(const QString& source);
    /// Imports the Hugging Face checkpoint in `directory` in the background (File → Open model),
    /// on `text` when given; the scenario replaces the current one when it is ready, a problem
    /// shows in the error line and leaves the scenario as it was.
    void openModel(const QString& directory, const std::optional<QString>& text = std::nullopt);
    ModelImport* modelImport() const { return import_; }
    bool saveTo(const QString& path);
    /// Writes every view of the current layer and head as `<dir>/<title>.<format>`.
    void exportViews(const QString& directory, const QString& format);
    void exportMatrices(const QString& directory, const QString& format);
    /// Writes the verdicts as JSON (the CLI's shape) or Markdown, by suffix.
    void exportVerdicts(const QString& path);

    /// When the previous session left unsaved work behind, asks `accept` (default: a dialog)
    /// whether to restore it, restores or discards it, then starts autosaving. Returns whether
    /// it restored.
    bool offerRecovery(const std::function<bool(const QString& when)>& accept = {});
    Autosave* autosave() const { return autosave_; }
    /// Opens the help window at `target` (a document of docs/, optionally `#slug`), raising it.
    HelpWindow* showHelp(const QString& target);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void rebuildRecentMenu();
    void addRecent(const QString& path);
    void showError(const QString& message);
    void updateTitle();
    /// Asks to save unsaved changes; false when the user cancels.
    bool confirmDiscard();

    ScenarioDocument* document_;
    ComputeService* compute_;
    TokensEditor* tokens_;
    ModelEditor* model_;
    TransformEditor* transform_;
    ViewsPanel* views_;
    PropertyPanel* properties_;
    QTextBrowser* notes_;
    QString shownNotes_; // the HTML notes_ shows
    QLabel* error_;
    QMenu* recentMenu_ = nullptr;
    HelpWindow* help_ = nullptr; // made when first asked for
    Autosave* autosave_;
    ModelImport* import_;
    ComparisonChoice* comparison_;
};

} // namespace attnlab::ui
