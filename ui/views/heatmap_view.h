// SPDX-License-Identifier: GPL-3.0-or-later
// One matrix drawn as a heatmap with QCustomPlot: crisp cells (no interpolation), a colour scale
// with its labelled legend (over the matrix's own range or one shared with another map; a
// difference's rounding within its tolerance drawn neutral, an exactly-zero one said in words),
// short numbers in the cells when they fit, token indices or token strings on the axes (row 0 at
// the top; strings thinned to what fits), the exact value in a tooltip, an optional overlay that
// greys out masked cells, and witness cells outlined. Pooled matrices (large n) are drawn at their
// block resolution with axes still in token indices, and a matrix with more cells than the plot
// has pixels is max-pooled further to the pixels it is drawn on. Presentation mode enlarges fonts
// and lines for a projector. A stale view (its new picture being computed) is veiled, the word
// "computing…" across it, until its caller says it is current again.
#pragma once

#include "core/explore/side_by_side.h"
#include "core/formats/color_maps.h"
#include "ui/views/heatmap_cells.h"
#include "ui/views/heatmap_layout.h"

#include <QColor>
#include <QPoint>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <string>
#include <vector>

class QCustomPlot;
class QCPColorScale;
class QCPTextElement;
class QCPItemText;
class QCPItemRect;
class QCPLayoutGrid;

namespace attnlab::ui {

class BandOutline;
class CellNumbers;
class StaleVeil;

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    using Scale = ColourScale;
    /// Whether values are written in the cells: when they fit a small map (up to 16 x 16),
    /// always where cells are large enough, or never.
    enum class Numbers { Auto, On, Off };
    /// How much presentation mode enlarges fonts and lines.
    static constexpr double kPresentationScale = 1.6;

    explicit HeatmapView(const QString& title, Scale scale, QWidget* parent = nullptr);

    /// Draws `matrix` (an empty matrix clears the view and shows `emptyText`).
    void setMatrix(const ViewMatrix& matrix, const QString& emptyText = QString());
    /// Greys out the cells where `mask` is false; an empty mask removes the overlay.
    void setMaskOverlay(const BoolMatrix& mask);
    /// Outlines these (row, column) cells in token indices; empty removes the outlines.
    void setHighlights(const QList<QPoint>& rowColumnCells);
    void setTitle(const QString& title);
    /// Names the axes (defaults "key" and "query"; an output's are "feature" and "token").
    void setAxisTitles(const QString& columns, const QString& rows);
    /// Names what the colour bar shows ("score", "weight", "difference", ...), in `shorter` words
    /// (longest first) where the bar is too short for `label`.
    void setColourLabel(const QString& label, const QStringList& shorter = {});
    /// Outlines the band |row − column| ≤ radius over the map (e.g. a claimed locality radius);
    /// nullopt removes it.
    void setBand(std::optional<int> radius);
    std::optional<int> bandRadius() const;
    /// Keeps the cells square (the map narrower or shorter than its room), or fills the room.
    void setSquareCells(bool square);
    /// Draws over `range` (e.g. one shared with the other side's map) instead of the matrix's
    /// own `colourRange`; nullopt returns to the own range.
    void setFixedRange(std::optional<ValueRange> range);
    /// The range the cells are drawn over now.
    ValueRange drawnRange() const;
    void setNumbers(Numbers numbers);
    /// Enlarges fonts and lines by kPresentationScale (true) or back to normal (false).
    void setPresentation(bool on);
    /// Veils the map (dimmed, "computing…" across it) while `stale`; a new matrix keeps the veil:
    /// the caller lifts it once the map is current.
    void setStale(bool stale);
    bool isStale() const;
    /// Names rows and columns by these token strings (empty: indices), e.g. the queries and
    /// keys of a map; every label shown when they fit, else every k-th.
    void setAxisLabels(const std::vector<std::string>& rows,
                       const std::vector<std::string>& columns);

    const ViewMatrix& matrix() const { return matrix_; }
    /// Whether masked cells are greyed (a mask of the matrix's shape was given).
    bool showsMaskOverlay() const { return cells_.showsMask(); }
    QString title() const;
    /// The font the title is drawn in now (smaller than the normal one where the map is narrow).
    QFont titleFont() const;
    /// Whether the title is cut short (elided) for want of room, even on two lines.
    bool titleElided() const { return titleElided_; }
    /// The colour bar's label as shown (shortened to the bar's length where it must be).
    QString colourLabel() const;
    /// Whether even the shortest form of the colour bar's label is cut short.
    bool colourLabelElided() const { return colourLabelElided_; }
    /// The short number written in cell (row, column) now; empty when none is (tests).
    QString cellNumber(int row, int column) const;
    /// The font the cells' numbers are written in at their current size.
    QFont cellNumberFont() const;
    /// The colour cell (row, column) is drawn in (tests).
    QColor cellColour(int row, int column) const;
    /// The words written across the plot ("exactly 0"); empty when none.
    QString plotMessage() const;
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
    void resizeEvent(QResizeEvent* event) override;
    /// Draws what changed while the view was hidden.
    void showEvent(QShowEvent* event) override;

private:
    /// Redraws the plot on the next turn of the event loop or, while the view is hidden (on
    /// another tab), once it is shown: a hidden view's replot on every edit is wasted work.
    void replotWhenShown();
    void showTooltip(QMouseEvent* event);
    void applyPalette();
    void redrawHighlights();
    /// The texts of the cells when numbers are wanted at the current size, else none.
    void updateNumbers();
    bool numbersWanted() const;
    /// The colour bar's label and the words across a zero or rounding-only difference.
    void updateLegend();
    /// The title and the message fitted to the map's width (the whole title stays in title()).
    void fitTitle();
    void fitColourLabel();
    void fitMessage();
    /// The map's room trimmed so that its cells are square (setSquareCells).
    void squareCells();
    /// Sets every font and line width for the current presentation scale.
    void applySizes();
    QFont sized(double points, bool bold = false) const;
    /// Ticks on both axes for the current matrix, size and labels (heatmap_layout.h).
    void updateTicks();

    QCustomPlot* plot_;
    HeatmapCells cells_;
    QCPColorScale* colorScale_;
    QCPTextElement* title_;
    CellNumbers* numbers_;
    QCPItemText* message_;
    StaleVeil* veil_;
    BandOutline* band_;
    QCPLayoutGrid* body_; // the map and its colour bar, under the title
    bool squareCells_ = false;
    QList<QCPItemRect*> outlines_;
    Scale scale_;
    std::optional<ValueRange> fixedRange_;
    Numbers numbersMode_ = Numbers::Auto;
    double sizeScale_ = 1; // kPresentationScale in presentation mode
    QString titleText_;
    bool titleElided_ = false, colourLabelElided_ = false;
    QString columnTitle_ = "key", rowTitle_ = "query", emptyText_;
    QStringList colourLabels_{QString()}; // the colour bar's label, then shorter ones
    ViewMatrix matrix_;
    bool replotPending_ = false; // asked for while hidden (replotWhenShown)
    QList<QPoint> highlights_;
    HeatmapTicks ticks_;
};

} // namespace attnlab::ui
