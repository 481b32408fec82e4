// SPDX-License-Identifier: GPL-3.0-or-later
// The texts around a heatmap laid out to the room its plot gives them: the axes' ticks (token
// strings, every k-th where they do not all fit, else the token indices that have room for their
// digits), the title shrunk (or wrapped, or elided) to its width, the colour bar's label to the
// bar's length, and the words across the plot shrunk to fit it.
#pragma once

#include "core/explore/side_by_side.h"

#include <QFont>
#include <QString>
#include <QStringList>

#include <utility>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPItemText;
class QCPTextElement;

namespace attnlab::ui {

/// The ticks of a heatmap's two axes, laid out again only when the room for them changes.
class HeatmapTicks {
public:
    /// Names rows and columns by token strings (empty: indices); false when they are unchanged.
    bool setLabels(const QStringList& rows, const QStringList& columns);
    const QStringList& rowLabels() const { return rows_; }
    const QStringList& columnLabels() const { return columns_; }
    /// Lays the ticks out again at the next update (a new matrix, labels or font size).
    void reset() { steps_ = {0, 0}; }
    /// Sets `plot`'s left and bottom tickers for `matrix` in fonts of `family` at `scale`, when
    /// what has room changed since the last update; whether it did (the plot to be redrawn).
    bool update(QCustomPlot* plot, const ViewMatrix& matrix, const QString& family, double scale);

private:
    QStringList rows_, columns_;
    /// Rows, columns: every k-th token label (k > 0) or index (-k); 0: to be computed.
    std::pair<int, int> steps_{0, 0};
};

/// Gives `axis` the first of `candidates` (longest first) whose lines are at most `length` long,
/// on one line or two; else the last elided to `length`; whether it is elided.
bool fitAxisLabel(QCPAxis* axis, const QStringList& candidates, int length);
/// Shows `text` in `title` in `font`, smaller where the title's width needs (down to the ticks'
/// size), on two lines where even that is too wide, elided where two lines are too; whether it is
/// elided.
bool fitTitle(QCPTextElement* title, const QString& text, const QFont& font);
/// Gives `message` a token label's bold font (of `family` at `scale`), shrunk where `map` is
/// narrower than its words.
void fitMessage(QCPItemText* message, const QString& family, double scale, const QCPAxisRect* map);

} // namespace attnlab::ui
