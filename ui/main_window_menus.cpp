// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's menus: File (open, save, recent, probing a program, exports), Edit (undo,
// cancel), View (editors panel, presentation mode), Presets and Help.
#include "ui/main_window.h"

#include "core/io/presets.h"
#include "ui/document/compute_service.h"
#include "ui/document/scenario_document.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_panel.h"
#include "ui/probe_mode.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QTabWidget>
#include <QUndoStack>
#include <algorithm>

namespace attnlab::ui {

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    file->addAction("&New (default scenario)", QKeySequence::New, this, [this] {
        if (confirmDiscard()) openSource(QString("builtin:") + attnlab::kDefaultPreset);
    });
    file->addAction("&Open…", QKeySequence::Open, this, [this] {
        if (!confirmDiscard()) return;
        const QString path = QFileDialog::getOpenFileName(this, "Open scenario", QString(),
                                                          "Scenarios (*.json);;All files (*)");
        if (!path.isEmpty()) openSource(path);
    });
    file->addAction("Open &Model…", QKeySequence("Ctrl+Shift+O"), this, [this] {
        if (!confirmDiscard()) return;
        const QString dir = QFileDialog::getExistingDirectory(
            this, "Open a Hugging Face model (a directory with config.json and safetensors)");
        if (!dir.isEmpty()) openModel(dir);
    });
    // Running a program is the user's act: only the dialog's Run starts one.
    QAction* probe = file->addAction("&Probe Program…", this, [this] { probe_->choose(); });
    probe->setObjectName("probeProgram");
    QAction* stopProbing = file->addAction("S&top Probing", probe_, &ProbeMode::stop);
    stopProbing->setObjectName("stopProbing");
    stopProbing->setEnabled(false);
    connect(probe_, &ProbeMode::switched, stopProbing, &QAction::setEnabled);
    recentMenu_ = file->addMenu("Open &Recent");
    rebuildRecentMenu();
    file->addAction("&Save", QKeySequence::Save, this, [this] {
        QString path = document_->filePath();
        if (path.isEmpty()) path = askSavePath("Save scenario");
        if (!path.isEmpty()) saveTo(path);
    });
    file->addAction("Save &As…", QKeySequence::SaveAs, this, [this] {
        const QString path = askSavePath("Save scenario as");
        if (!path.isEmpty()) saveTo(path);
    });
    QMenu* exportMenu = file->addMenu("&Export");
    for (const QString format : {"png", "svg", "pdf"})
        exportMenu->addAction(QString("Views as %1…").arg(format.toUpper()), this, [this, format] {
            const QString dir = QFileDialog::getExistingDirectory(this, "Export views into");
            if (!dir.isEmpty()) exportViews(dir, format);
        });
    for (const QString format : {"csv", "npy"})
        exportMenu->addAction(
            QString("Matrices as %1…").arg(format.toUpper()), this, [this, format] {
                const QString dir = QFileDialog::getExistingDirectory(this, "Export matrices into");
                if (!dir.isEmpty()) exportMatrices(dir, format);
            });
    exportMenu->addAction("Verdicts as JSON or Markdown…", this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, "Export verdicts", "verdicts.json",
                                                          "JSON (*.json);;Markdown (*.md)");
        if (!path.isEmpty()) exportVerdicts(path);
    });
    const auto exportFigureAs = [this](int row) {
        const QString path = QFileDialog::getSaveFileName(
            this, "Export figure", figureFileName(row), "Figures (*.svg *.pdf *.png)", nullptr,
            QFileDialog::DontConfirmOverwrite); // exportFigure asks
        if (!path.isEmpty()) exportFigure(path, row);
    };
    file->addAction("Export &figure…", this, [exportFigureAs] { exportFigureAs(-1); });
    file->addAction("Export &row…", this, [this, exportFigureAs] {
        bool ok = false;
        const QString row = QInputDialog::getItem(this, "Export row",
                                                  "Row of the figure:", kFigureRows, 1, false, &ok);
        if (ok) exportFigureAs(int(kFigureRows.indexOf(row)));
    });
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu("&Edit");
    QAction* undo = document_->undoStack()->createUndoAction(this, "&Undo");
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = document_->undoStack()->createRedoAction(this, "&Redo");
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // Esc is not the action's shortcut: a shortcut would take the Esc that closes a drop-down or
    // an editor (keyPressEvent sees only those nobody consumed). "\t" shows the key in the menu.
    edit->addAction("&Cancel running checks\tEsc", this, &MainWindow::cancelRunning);

    QMenu* view = menuBar()->addMenu("&View");
    QAction* editors = view->addAction("&Editors panel", QKeySequence("Ctrl+E"));
    editors->setObjectName("toggleEditors");
    editors->setCheckable(true);
    editors->setChecked(true);
    connect(editors, &QAction::toggled, this, [this](bool on) {
        inputs_->setVisible(on);
        QList<int> sizes = splitter_->sizes(); // dragged shut earlier: open it at a usable width
        if (on && sizes[0] == 0) {
            sizes[0] = 300;
            sizes[1] -= 300;
            splitter_->setSizes(sizes);
        }
    });
    // Presentation mode gives the maps the editors' room and enlarges the maps and the verdicts;
    // leaving it brings the editors back if they were shown.
    QAction* presentation = view->addAction("&Presentation mode", QKeySequence(Qt::Key_F11));
    presentation->setCheckable(true);
    presentation->setObjectName("presentation");
    connect(presentation, &QAction::toggled, this, [this, editors](bool on) {
        views_->setPresentation(on);
        properties_->setPresentation(on);
        if (!on) {
            editors->setChecked(editorsBeforePresentation_);
            splitter_->setSizes(sizesBeforePresentation_);
            return;
        }
        editorsBeforePresentation_ = editors->isChecked();
        sizesBeforePresentation_ = splitter_->sizes();
        editors->setChecked(false);
        // The verdicts widen with their text; the views take the rest.
        const int total = splitter_->sizes()[1] + splitter_->sizes()[2];
        const int verdicts = std::min(
            total / 2, int(sizesBeforePresentation_[2] * PropertyPanel::kPresentationScale));
        splitter_->setSizes({0, total - verdicts, verdicts});
    });

    QMenu* presets = menuBar()->addMenu("&Presets");
    for (const attnlab::PresetInfo& p : attnlab::builtinPresets()) {
        const QString name = QString::fromStdString(p.name);
        presets->addAction(QString("%1 — %2").arg(name, QString::fromStdString(p.title)), this,
                           [this, name] {
                               if (confirmDiscard()) openSource("builtin:" + name);
                           });
    }

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("&User guide", QKeySequence::HelpContents, this,
                    [this] { showHelp(guideSectionFor(QApplication::focusWidget())); });
    help->addAction("The &properties and their mathematics", this,
                    [this] { showHelp("properties.md"); });
    help->addAction("The &scenario file format", this, [this] { showHelp("scenario-format.md"); });
    help->addAction("The &command line (attnlab-cli)", this, [this] { showHelp("cli.md"); });
    help->addSeparator();
    help->addAction("&About AttnLab", this, [this] {
        QMessageBox::about(this, "About AttnLab",
                           "AttnLab explores the mathematical properties of transformer attention: "
                           "build an input, transform it, and see which properties hold on your "
                           "numbers. The same computations run headless with attnlab-cli.");
    });
}

} // namespace attnlab::ui
