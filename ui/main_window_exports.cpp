// SPDX-License-Identifier: GPL-3.0-or-later
// The window's exports: each view as a picture or its matrix, the figure of the views, and the
// verdicts as JSON or Markdown.
#include "ui/main_window.h"

#include "core/checks/report_export.h"
#include "ui/document/scenario_document.h"
#include "ui/panels/property_panel.h"
#include "ui/panels/views_figure.h"
#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"
#include "ui/views/overwrite_prompt.h"
#include "ui/views/view_export.h"

#include <QDir>
#include <QSaveFile>
#include <QStatusBar>
#include <QTreeWidget>

namespace attnlab::ui {

void MainWindow::exportViews(const QString& directory, const QString& format) {
    exportEachView(directory, format, "views",
                   [](HeatmapView* v, const QString& path) { exportHeatmap(v, path); });
}

void MainWindow::exportMatrices(const QString& directory, const QString& format) {
    exportEachView(directory, format, "matrices",
                   [](HeatmapView* v, const QString& path) { exportMatrix(v->matrix(), path); });
}

void MainWindow::exportEachView(const QString& directory, const QString& format,
                                const QString& what,
                                const std::function<void(HeatmapView*, const QString&)>& write) {
    const QString stem = figureStem(QString::fromStdString(document_->scenario().name),
                                    views_->layer(), views_->head());
    QList<std::pair<HeatmapView*, QString>> files;
    for (HeatmapView* v : views_->allViews())
        if (v->isStale()) return showStillComputing();
    for (HeatmapView* v : views_->allViews())
        if (v->matrix().values.size() > 0)
            files.append(
                {v, QDir(directory).filePath(stem + "_" + fileStem(v->title()) + "." + format)});
    QStringList paths;
    for (const auto& f : files)
        paths << f.second;
    if (!confirmOverwrite(this, paths)) return;
    try {
        for (const auto& [view, path] : files)
            write(view, path);
        statusBar()->showMessage(
            QString("Exported %1 %2 to %3").arg(files.size()).arg(what, directory), 4000);
    } catch (const std::exception& e) {
        showError(QString("Export failed: %1").arg(e.what()));
    }
}

const attnlab::PropertyReport* MainWindow::selectedReport() const {
    return properties_->report(PropertyPanel::propertyOf(properties_->tree()->currentItem()));
}

QString MainWindow::figureFileName(int row) const {
    QString name = figureStem(QString::fromStdString(document_->scenario().name), views_->layer(),
                              views_->head());
    if (row >= 0 && row < kFigureRows.size()) name += "_" + kFigureRows[row];
    if (const attnlab::PropertyReport* r = selectedReport())
        name += "_" + fileStem(QString::fromStdString(r->name));
    return name + ".svg";
}

void MainWindow::showStillComputing() {
    showError("The maps on screen are still the previous input's (veiled, computing…): export "
              "them once the new input's are drawn.");
}

bool MainWindow::exportFigure(const QString& path, int row) {
    if (views_->viewsStale()) {
        showStillComputing();
        return false;
    }
    try {
        const attnlab::PropertyReport* r = selectedReport();
        const Figure figure =
            viewsFigure(*views_, QString::fromStdString(document_->scenario().name),
                        r ? QString::fromStdString(attnlab::verdictLine(*r)) : QString(), row);
        const QByteArray file = figureFile(figure, path); // an unknown suffix asks nothing
        if (!confirmOverwrite(this, {path})) return false;
        writeFileBytes(path, file);
    } catch (const std::exception& e) {
        showError(QString("Export failed: %1").arg(e.what()));
        return false;
    }
    statusBar()->showMessage("Exported the figure to " + path, 4000);
    return true;
}

void MainWindow::exportVerdicts(const QString& path) {
    const attnlab::Scenario& s = document_->scenario();
    const auto reports = properties_->reports();
    const nlohmann::json ran =
        views_->current() ? views_->current()->backend : nlohmann::json{{"backend", "cpu"}};
    const std::string text =
        path.endsWith(".md", Qt::CaseInsensitive)
            ? attnlab::checkReportMarkdown(s.name, s.precision, ran, reports)
            : attnlab::checkReportJson(s.precision, ran, reports).dump(2) + "\n";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) < 0 ||
        !file.commit()) {
        showError(QString("Export failed: %1: %2").arg(path, file.errorString()));
        return;
    }
    statusBar()->showMessage("Exported verdicts to " + path, 4000);
}

} // namespace attnlab::ui
