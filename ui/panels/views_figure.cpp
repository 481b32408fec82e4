// SPDX-License-Identifier: GPL-3.0-or-later
// The views panel's maps as a figure.
#include "ui/panels/views_figure.h"

#include "ui/panels/views_panel.h"
#include "ui/views/heatmap_view.h"

#include <stdexcept>

namespace attnlab::ui {

namespace {

/// The panels of one row of the side-by-side page, left to right.
std::vector<FigurePanel> rowPanels(const ViewsPanel& views, ViewsPanel::Row row) {
    const SideBySide& s = *views.current();
    const std::size_t layer = std::size_t(views.layer());
    std::vector<FigurePanel> panels;
    for (int c = 0; c < ViewsPanel::ColumnCount; ++c) {
        const HeatmapView* view = views.view(row, ViewsPanel::Column(c));
        const SideView& side = s.side(Side(c));
        FigurePanel p;
        p.title = view->title();
        p.matrix = view->matrix();
        p.highlights = view->highlights();
        p.scale = c == ViewsPanel::Difference ? ColourScale::Diverging : ColourScale::Sequential;
        p.rowLabels = side.labels;
        if (row == ViewsPanel::Output) {
            p.rowAxis = "token";
            p.columnAxis = "feature";
        } else {
            p.rowAxis = "query";
            p.columnAxis = "key";
            p.columnLabels = side.columnLabels();
        }
        const std::vector<BoolMatrix>& masks = s.masksOf(c == ViewsPanel::Transformed);
        if (row == ViewsPanel::Weights && c != ViewsPanel::Difference && layer < masks.size())
            p.mask = masks[layer];
        if (p.matrix.values.size() > 0) p.range = colourRange(p.scale, p.matrix.values);
        panels.push_back(std::move(p));
    }
    const Eigen::MatrixXd &original = panels[ViewsPanel::Original].matrix.values,
                          &transformed = panels[ViewsPanel::Transformed].matrix.values;
    if (original.size() > 0 || transformed.size() > 0) {
        const ValueRange shared = sharedColourRange(ColourScale::Sequential, original, transformed);
        panels[ViewsPanel::Original].range = panels[ViewsPanel::Transformed].range = shared;
    }
    return panels;
}

} // namespace

Figure viewsFigure(const ViewsPanel& views, const QString& scenario, const QString& verdict,
                   int row) {
    const SideBySide* s = views.current();
    if (!s) throw std::runtime_error("nothing to export: the views have not been computed yet");
    Figure figure;
    figure.title = scenario;
    figure.subtitle << QString("%1 · layer %2, head %3 · %4")
                           .arg(QString::fromStdString(s->transformText))
                           .arg(views.layer())
                           .arg(views.head())
                           .arg(QString::fromStdString(std::string(precisionName(s->precision))));
    if (!verdict.isEmpty()) figure.subtitle << verdict;
    figure.columns = ViewsPanel::ColumnCount;
    for (int r = 0; r < ViewsPanel::RowCount; ++r)
        if (row < 0 || row == r) {
            std::vector<FigurePanel> panels = rowPanels(views, ViewsPanel::Row(r));
            std::move(panels.begin(), panels.end(), std::back_inserter(figure.panels));
        }
    return figure;
}

} // namespace attnlab::ui
