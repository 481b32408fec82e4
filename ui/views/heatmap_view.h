// One matrix drawn as a heatmap with QCustomPlot: crisp cells (no interpolation), a colour scale
// with its legend, token indices or token strings on the axes (row 0 at the top; strings thinned
// to what fits), the exact value in a tooltip,
// an optional overlay that greys out masked cells, and witness cells outlined. Pooled matrices
// (large n) are drawn at their block resolution with axes still in token indices, and a matrix
// with more cells than the plot has pixels is max-pooled further to the pixels it is drawn on.
#pragma once

#include "core/explore/side_by_side.h"
#include "core/io/color_maps.h"

#include <QPoint>
#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;

namespace attnlab::ui {

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    using Scale = ColourScale;

    explicit HeatmapView(const QString& title, Scale scale, QWidget* parent = nullptr);

    /// Draws `matrix` (an empty matrix clears the view and shows `emptyText`).
    void setMatrix(const ViewMatrix& matrix, const QString& emptyText = QString());
    /// Greys out the cells where `mask` is false; an empty mask removes the overlay.
    void setMaskOverlay(const BoolMatrix& mask);
    /// Outlines these (row, column) cells in token indices; empty removes the outlines.
    void setHighlights(const QList<QPoint>& rowColumnCells);
    void setTitle(const QString& title);
    /// Names rows and columns by these token strings (empty: indices), e.g. the queries and
    /// keys of a map; every label shown when they fit, else every k-th.
    void setAxisLabels(const std::vector<std::string>& rows,
                       const std::vector<std::string>& columns);

    const ViewMatrix& matrix() const { return matrix_; }
    /// Whether masked cells are greyed (a mask of the matrix's shape was given).
    bool showsMaskOverlay() const { return mask_.size() > 0; }
    QString title() const;
    int highlightCount() const { return highlights_.size(); }
    /// The outlined (row, column) cells, as setHighlights gave them.
    const QList<QPoint>& highlights() const { return highlights_; }
    /// The tooltip text for the cell under token coordinates (row, column).
    QString cellText(int row, int column) const;
    QCustomPlot* plot() const { return plot_; }
    /// The tick labels an axis shows now (tests).
    QStringList tickLabels(Qt::Orientation orientation) const;

protected:
    void changeEvent(QEvent* event) override;

private:
    /// Fills the colour map (and the mask overlay) from matrix_, pooled to the plot's pixels.
    void fillCells();
    void fillMap();
    /// The overlay at the map's cells (fillMap first).
    void fillOverlay();
    /// How many cells fit the plot: its pixel rows and columns (at least 16 each).
    std::pair<int, int> pixelCells() const;
    /// How many rows and columns of matrix_ one drawn cell covers at that size (1 when it fits).
    std::pair<int, int> pixelBlocks() const;
    void showTooltip(QMouseEvent* event);
    void applyPalette();
    void redrawHighlights();
    /// Ticks on both axes: token strings every `step` tokens, else indices.
    void updateTicks();
    /// Every how many tokens an axis of this many pixels has room for a label.
    int labelStep(const QStringList& labels, int pixels) const;

    QCustomPlot* plot_;
    QCPColorMap* map_;
    QCPColorMap* overlay_;
    QCPColorScale* colorScale_;
    QCPTextElement* title_;
    Scale scale_;
    ViewMatrix matrix_;
    BoolMatrix mask_;                        // the overlay's source (empty: none)
    std::pair<int, int> displayBlock_{1, 1}; // rows, columns of matrix_ per drawn cell
    QList<QPoint> highlights_;
    QStringList rowLabels_, columnLabels_;
    std::pair<int, int> labelSteps_{0, 0}; // rows, columns: the ticks shown (0: indices)
};

} // namespace attnlab::ui
