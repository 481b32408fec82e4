// SPDX-License-Identifier: GPL-3.0-or-later
// A slide-ready figure of what the views show: a title block (scenario, transformation, layer and
// head, the selected verdict) over a grid of heatmap panels, each with its title, cells as vector
// rectangles, masked cells greyed, witness cells outlined, tick labels, a colour bar and, on small
// maps, the values in the cells. Painted with QPainter (figure_painter.cpp) and written as one PNG,
// SVG or PDF file.
#pragma once

#include "core/explore/side_by_side.h"
#include "core/formats/color_maps.h"

#include <QByteArray>
#include <QList>
#include <QPoint>
#include <QSize>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QPainter;

namespace attnlab::ui {

/// One heatmap of a figure.
struct FigurePanel {
    QString title;
    ViewMatrix matrix; // empty: the panel says "no data"
    ColourScale scale = ColourScale::Sequential;
    ValueRange range{0, 1}; // the values at the colour bar's ends
    BoolMatrix mask;        // false: the cell is greyed; empty (or another shape): none
    std::vector<std::string> rowLabels, columnLabels; // token labels; empty: indices
    QString rowAxis, columnAxis;                      // "query", "key", ...
    QList<QPoint> highlights; // witness cells (row, column) in token indices: outlined
};

struct Figure {
    QString title;        // the scenario's name
    QStringList subtitle; // the transformation, layer and head, the verdict: one line each
    int columns = 3;
    std::vector<FigurePanel> panels; // row-major, `columns` per row
};

/// Maps with at most this many rows and columns carry their values in the cells.
inline constexpr int kFigureNumbersUpTo = 16;
/// Larger maps are pooled (max |value|, core/explore/display_pooling.h) to this many cells a side.
inline constexpr int kFigureCellsUpTo = 128;

/// The figure's size in logical pixels (points in a PDF).
QSize figureSize(const Figure& figure);
/// Paints the figure at figureSize() onto `painter` from its origin, background included.
void paintFigure(QPainter& painter, const Figure& figure);
/// The figure as the file `path` names by its suffix: .png (at twice figureSize), .svg or .pdf.
/// Throws std::runtime_error "path: reason" for another suffix. Writes nothing: view_export.h's
/// writeFileBytes does.
QByteArray figureFile(const Figure& figure, const QString& path);
/// The start of an exported file's name: "default_L0_H0" for scenario "default", layer 0, head 0.
QString figureStem(const QString& scenario, int layer, int head);

} // namespace attnlab::ui
