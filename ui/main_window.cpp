// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window and its wiring.
#include "ui/main_window.h"

#include "core/checks/check_registry.h"
#include "core/explore/resource_limits.h"
#include "core/io/presets.h"
#include "core/io/scenario_reader.h"
#include "core/io/scenario_writer.h"
#include "ui/document/autosave.h"
#include "ui/document/comparison_choice.h"
#include "ui/document/compute_service.h"
#include "ui/document/model_import.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/model_editor.h"
#include "ui/editors/tokens_editor.h"
#include "ui/editors/transform_editor.h"
#include "ui/help/doc_links.h"
#include "ui/help/help_window.h"
#include "ui/mask/mask_editor.h"
#include "ui/panels/check_parameters_form.h"
#include "ui/panels/error_banner.h"
#include "ui/panels/probe_banner.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/probe_mode.h"
#include "ui/views/heatmap_view.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::ui {

namespace {

constexpr int kMaxRecent = 8;

QWidget* scrolled(QWidget* w) {
    auto* area = new QScrollArea;
    area->setWidget(w);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

/// Whether the report of a property that measures the dependency page's map has arrived.
bool dependencySourceReported(const PropertyPanel& properties) {
    const auto& units = attnlab::propertyUnits();
    return std::any_of(units.begin(), units.end(), [&](const attnlab::PropertyUnit& unit) {
        return unit.dependencyMap == attnlab::DependencyMapRole::Source &&
               properties.report(QString::fromStdString(unit.name()));
    });
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new ScenarioDocument(this)),
      compute_(new ComputeService(this)),
      comparison_(new ComparisonChoice(document_, compute_, this)), views_(new ViewsPanel),
      properties_(new PropertyPanel), notes_(new QTextBrowser), inputs_(new QTabWidget),
      splitter_(new QSplitter(Qt::Horizontal)),
      autosave_(new Autosave(document_, Autosave::defaultDirectory(),
                             qEnvironmentVariableIsSet("ATTNLAB_AUTOSAVE_MS")
                                 ? qEnvironmentVariableIntValue("ATTNLAB_AUTOSAVE_MS")
                                 : 10000,
                             this)),
      import_(new ModelImport(this)) {
    // An edit's first reactions (a signal's slots run in the order they were connected): the
    // comparison to draw follows it, then the worker is asked for its views and verdicts, and
    // only then do the editors, made here, refresh (a millisecond or more per edit, which the
    // worker now spends computing).
    connect(document_, &ScenarioDocument::changed, this,
            [this] { compute_->request(document_->sharedState()); });
    tokens_ = new TokensEditor(document_);
    model_ = new ModelEditor(document_);
    transform_ = new TransformEditor(document_);
    QTabWidget* inputs = inputs_;
    inputs->setObjectName("inputs");
    // Each editor scrolls down when the panel is shorter than it; all fit the panel's width at
    // 1280 px. The titles are short enough to fit it side by side: with a larger font they are
    // elided, never hidden behind scroll arrows.
    inputs->setUsesScrollButtons(false);
    inputs->setElideMode(Qt::ElideRight);
    inputs->addTab(scrolled(tokens_), "Tokens");
    inputs->addTab(scrolled(model_), "Model");
    inputs->addTab(scrolled(model_->maskEditor()), QString());
    inputs->addTab(scrolled(transform_), "Transform");
    const auto nameMaskTab = [inputs](int layer) {
        inputs->setTabText(2, QString("Mask L%1").arg(layer));
        inputs->setTabToolTip(
            2, QString("The mask of layer %1, the layer the Model tab edits").arg(layer));
    };
    nameMaskTab(0);

    notes_->setObjectName("scenarioNotes");
    notes_->setOpenLinks(false); // references to docs/ open the help window
    connect(properties_, &PropertyPanel::helpRequested, this,
            [this](const QString& target) { showHelp(target); });
    connect(notes_, &QTextBrowser::anchorClicked, this,
            [this](const QUrl& url) { showHelp(docTarget(url)); });
    // The verdicts, under the line that names the program while one is probed (probe_mode.h).
    auto* verdicts = new QWidget;
    auto* verdictsLayout = new QVBoxLayout(verdicts);
    verdictsLayout->setContentsMargins(0, 0, 0, 0);
    verdictsLayout->setSpacing(2);
    verdictsLayout->addWidget(properties_, 1);
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(verdicts);
    right->addWidget(notes_);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 1);

    QSplitter* splitter = splitter_;
    splitter->addWidget(inputs);
    splitter->addWidget(views_);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1); // the views take what the window gains or loses

    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);
    error_ = new ErrorBanner(central); // over the panels: showing it resizes nothing
    setObjectName("AttnLabMainWindow");
    splitter->setObjectName("mainSplitter");

    // A new scenario starts on its own: no property selected, every parameter at its default.
    connect(document_, &ScenarioDocument::replaced, this, [this] {
        compute_->clearChosenParameters();
        properties_->forgetSelection(); // a new scenario also ends probe mode (probe_mode.h)
    });
    connect(document_, &ScenarioDocument::changed, this, [this] {
        // What is drawn of the previous input says so until the new input's results arrive
        // (a probe's verdicts and dependency map follow the probe: probe_mode.h).
        const bool probing = probe_ && probe_->isOn();
        views_->markStale(!probing);
        if (!probing) properties_->markStale();
        error_->hide();
        const QString notes =
            QString("<h3>%1</h3><p>%2</p>")
                .arg(QString::fromStdString(document_->scenario().name).toHtmlEscaped(),
                     linkDocReferences(
                         QString::fromStdString(document_->scenario().notes).toHtmlEscaped(),
                         &HelpWindow::headingTitle));
        if (notes != shownNotes_) { // laying the text out again costs a millisecond per edit
            notes_->setHtml(notes);
            shownNotes_ = notes;
        }
        updateTitle();
        if (auto warning = attnlab::exactCostWarning(document_->scenario()))
            statusBar()->showMessage(QString::fromStdString(*warning), 10000);
    });
    connect(document_, &ScenarioDocument::refused, this, &MainWindow::showError);
    connect(document_, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(compute_, &ComputeService::viewsReady, views_, &ViewsPanel::setViews);
    connect(compute_, &ComputeService::overviewReady, views_, &ViewsPanel::setOverview);
    connect(compute_, &ComputeService::viewsFailed, this, [this](const QString& message) {
        views_->clearViews(message);
        showError(message);
    });
    connect(import_, &ModelImport::started, this, [this](const QString& directory) {
        statusBar()->showMessage("Opening the model in " + directory + "…");
    });
    connect(import_, &ModelImport::imported, this,
            [this](const attnlab::Scenario& scenario, const QString& text) {
                tokens_->rememberSentence(text, scenario.tokens.ids);
                document_->reset(scenario, QString());
                statusBar()->showMessage(
                    QString("Opened %1").arg(QString::fromStdString(scenario.name)), 4000);
            });
    connect(import_, &ModelImport::failed, this, &MainWindow::showError);
    // The model's verdicts reach the panel unless it shows a probe's (probe_mode.h).
    connect(compute_, &ComputeService::checksStarted, this,
            [this](const QStringList& names, const QStringList& deferred) {
                if (!probe_->isOn()) properties_->start(names, deferred);
            });
    connect(compute_, &ComputeService::checkRunning, this, [this](int i) {
        if (!probe_->isOn()) properties_->setRunning(i);
    });
    connect(compute_, &ComputeService::checkRestarted, this, [this](int i) {
        if (probe_->isOn()) return;
        properties_->restart(i);
        // Its new parameters (locality's radius) change the Dependencies page it measures.
        const auto checks = compute_->checks();
        const attnlab::PropertyUnit* unit =
            std::size_t(i) < checks.size() ? attnlab::findPropertyUnit(checks[std::size_t(i)].name)
                                           : nullptr;
        if (unit && unit->dependencyMap != attnlab::DependencyMapRole::None)
            views_->markDependenciesStale();
    });
    properties_->showParametersOf(compute_);
    connect(properties_->parametersForm(), &CheckParametersForm::refused, this,
            &MainWindow::showError);
    connect(compute_, &ComputeService::checkReady, this,
            [this](int i, const attnlab::PropertyReport& r) {
                if (probe_->isOn()) return;
                properties_->setReport(i, r);
                // The dependency page: the map of the property that measures it (locality);
                // until that one has run, the map a property measures when it fails, to find its
                // witness (causality), or nothing once it holds.
                const attnlab::PropertyUnit* unit = attnlab::findPropertyUnit(r.name);
                const auto role = unit ? unit->dependencyMap : attnlab::DependencyMapRole::None;
                if (role == attnlab::DependencyMapRole::Source)
                    views_->setDependencyReport(&r);
                else if (role == attnlab::DependencyMapRole::Fallback &&
                         !dependencySourceReported(*properties_))
                    views_->setDependencyReport(r.details.contains("dependency_map") ? &r
                                                                                     : nullptr);
            });
    connect(compute_, &ComputeService::checkFailed, this, [this](int i, const QString& message) {
        if (!probe_->isOn()) properties_->setFailed(i, message);
    });
    connect(compute_, &ComputeService::checksFinished, this, [this](bool cancelled) {
        if (probe_->isOn()) return;
        properties_->finish(cancelled);
        // No property of this input measured the dependency page: the previous input's map goes.
        if (views_->dependencyStale()) views_->setDependencyReport(nullptr);
        // A first look: why the first failing one fails, its comparison drawn (as a click does).
        const QString first = properties_->selectFirstFailure();
        if (!first.isEmpty()) comparison_->followProperty(first, properties_->report(first));
    });
    connect(properties_, &PropertyPanel::cancelRequested, this, &MainWindow::cancelRunning);
    connect(properties_, &PropertyPanel::runAllRequested, compute_, &ComputeService::runAllChecks);
    // The witness lies on the maps of its property's comparison: the views outline it when they
    // draw those, now or once they arrive.
    connect(properties_, &PropertyPanel::witnessSelected, this,
            [this](const std::vector<attnlab::WitnessCell>& cells) {
                if (probe_->isOn()) return views_->showProbeWitness(cells);
                const QString name = PropertyPanel::propertyOf(properties_->tree()->currentItem());
                views_->showWitness(
                    cells, comparison_->witnessMaps(name, properties_->report(name),
                                                    properties_->shrinkBox()->isChecked()));
            });
    // The views follow the property the user selects (a click, or the keys in the list), and
    // the transformation again when the Transform tab is chosen.
    const auto follow = [this](QTreeWidgetItem* item) {
        const QString name = PropertyPanel::propertyOf(item);
        if (!name.isEmpty() && !probe_->isOn())
            comparison_->followProperty(name, properties_->report(name));
    };
    connect(properties_->tree(), &QTreeWidget::itemClicked, this, follow);
    connect(properties_->tree(), &QTreeWidget::currentItemChanged, this,
            [this, follow](QTreeWidgetItem* item) {
                if (properties_->tree()->hasFocus()) follow(item);
            });
    // The shrunk witness is another, smaller input: the views draw it rather than outline a
    // cell of the full one.
    connect(properties_->shrinkBox(), &QCheckBox::toggled, this, [this](bool shrunk) {
        if (probe_->isOn()) return; // a probe's shrunk witness is a cell of its maps
        const QString name = PropertyPanel::propertyOf(properties_->tree()->currentItem());
        if (!name.isEmpty() && shrunk) comparison_->followProperty(name, properties_->report(name));
        comparison_->setShrunk(shrunk);
    });
    connect(inputs, &QTabWidget::currentChanged, this, [this, inputs](int tab) {
        if (inputs->widget(tab)->isAncestorOf(transform_)) comparison_->followTransform();
    });
    connect(model_, &ModelEditor::layerSelected, views_, &ViewsPanel::setLayer);
    connect(model_, &ModelEditor::layerSelected, inputs, nameMaskTab);
    connect(views_, &ViewsPanel::layerChanged, model_, &ModelEditor::setCurrentLayer);
    // After the connections above: its reaction to an edit comes after the error line is hidden.
    probe_ = new ProbeMode(this);
    verdictsLayout->insertWidget(0, probe_->banner());

    buildMenus();
    statusBar()->showMessage("Ready");
    restoreLayout();
    document_->reset(document_->scenario(), QString());
    if (!autosave_->hasRecovery()) autosave_->start();
}

bool MainWindow::offerRecovery(const std::function<bool(const QString&)>& accept) {
    bool restored = false;
    if (autosave_->hasRecovery()) {
        const QString path = autosave_->filePath();
        const QString when = QFileInfo(path).lastModified().toString(Qt::TextDate);
        const bool yes =
            accept ? accept(when)
                   : QMessageBox::question(
                         this, "Restore unsaved work?",
                         QString("AttnLab did not close normally last time. Restore the scenario "
                                 "autosaved at %1?")
                             .arg(when),
                         QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
        if (yes) {
            try {
                document_->reset(attnlab::loadScenarioFile(path.toStdString()), QString(), true);
                statusBar()->showMessage("Restored the autosaved scenario; save it to keep it.");
                restored = true;
            } catch (const std::exception& e) {
                showError(QString("The autosave could not be restored: %1").arg(e.what()));
            }
        }
        if (!restored) autosave_->discard();
    }
    autosave_->start();
    return restored;
}

MainWindow::~MainWindow() {
    compute_->blockSignals(true);
    compute_->waitForDone();
    // The children are deleted after this body (the document's undo stack emits cleanChanged
    // as it goes): no slot of this half-destroyed window may run then (found by UBSan).
    for (QObject* sender : {static_cast<QObject*>(document_->undoStack()),
                            static_cast<QObject*>(document_), static_cast<QObject*>(compute_)})
        disconnect(sender, nullptr, this, nullptr);
    // An open cell editor commits when its widget closes: the editors go first, while the
    // document they write to still exists, and nothing they emit reaches anyone.
    document_->blockSignals(true);
    delete takeCentralWidget();
}

HelpWindow* MainWindow::showHelp(const QString& target) {
    if (!help_) help_ = new HelpWindow(this);
    help_->show(); // laid out at its own size before it scrolls to a heading
    if (!help_->open(target)) help_->open("user-guide.md");
    help_->raise();
    help_->activateWindow();
    return help_;
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& path : recent)
        recentMenu_->addAction(QFileInfo(path).fileName() + "  —  " + path, this, [this, path] {
            if (confirmDiscard()) openSource(path);
        });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

bool MainWindow::openSource(const QString& source) {
    if (!document_->open(source)) return false;
    if (!source.startsWith("builtin:")) addRecent(QFileInfo(source).absoluteFilePath());
    statusBar()->showMessage("Opened " + source, 4000);
    return true;
}

void MainWindow::openModel(const QString& directory, const std::optional<QString>& text) {
    import_->start(directory, text);
}

QString MainWindow::askSavePath(const QString& title) {
    return QFileDialog::getSaveFileName(this, title, "scenario.json", "Scenarios (*.json)");
}

bool MainWindow::saveTo(const QString& chosen) {
    const QString path =
        QString::fromStdString(attnlab::scenarioSavePath(chosen.toStdString()).string());
    if (!document_->saveAs(path)) return false;
    updateTitle(); // saved: no longer modified
    addRecent(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage("Saved " + path, 4000);
    return true;
}

QString MainWindow::errorText() const {
    return error_->text();
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
    if (event->key() != Qt::Key_Escape || event->modifiers() != Qt::NoModifier)
        return QMainWindow::keyPressEvent(event);
    if (error_->isVisible())
        error_->hide();
    else
        cancelRunning();
}

void MainWindow::cancelRunning() {
    if (probe_->isOn())
        probe_->cancel();
    else
        compute_->cancelChecks();
}

void MainWindow::showError(const QString& message) {
    error_->showMessage(message +
                        "\nNothing you entered was lost; correct the value or undo (Ctrl+Z).");
    statusBar()->showMessage(message, 8000);
}

void MainWindow::updateTitle() {
    const QString path = document_->filePath();
    const QString name = path.isEmpty() ? QString::fromStdString(document_->scenario().name)
                                        : QFileInfo(path).fileName();
    setWindowTitle(QString("%1%2 — AttnLab").arg(name, document_->isModified() ? " *" : ""));
}

bool MainWindow::confirmDiscard() {
    if (!document_->isModified()) return true;
    const auto answer = QMessageBox::question(
        this, "Unsaved changes", "The scenario has unsaved changes. Save them first?",
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Discard) return true;
    QString path = document_->filePath();
    if (path.isEmpty()) path = askSavePath("Save scenario");
    return !path.isEmpty() && saveTo(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscard()) {
        event->ignore();
        return;
    }
    autosave_->discard(); // a clean exit: nothing to recover
    saveLayout();
    event->accept();
}

void MainWindow::showEditorTab(QWidget* editor) {
    for (int i = 0; i < inputs_->count(); ++i)
        if (inputs_->widget(i)->isAncestorOf(editor)) inputs_->setCurrentIndex(i);
}

QString MainWindow::guideSectionFor(const QWidget* focus) const {
    // The innermost panel holding the focus names the guide's section about it.
    const std::pair<const QWidget*, const char*> sections[] = {
        {model_->maskEditor(), "user-guide.md#the-mask-editor"},
        {inputs_, "user-guide.md#left-the-inputs"},
        {views_, "user-guide.md#centre-the-views"},
        {properties_, "user-guide.md#right-the-verdicts"},
    };
    for (const auto& [panel, target] : sections)
        if (focus && (panel == focus || panel->isAncestorOf(focus))) return target;
    return "user-guide.md";
}

} // namespace attnlab::ui
