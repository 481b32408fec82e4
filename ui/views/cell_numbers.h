// SPDX-License-Identifier: GPL-3.0-or-later
// The numbers written inside a heatmap's cells: one short text per cell, drawn centred in a colour
// that contrasts with the cell's (core/formats/color_maps.h `darkTextOn`), in every cell or none (a
// scattering of the short ones would mislead). The font grows with the cells (up to twice its
// size) and shrinks to fit the widest text, down to a smallest size below which none is written:
// numbers too small to be read are left to the colours and the tooltips.
#pragma once

#include "core/explore/side_by_side.h"

#include <QFont>
#include <QStringList>

#include <qcustomplot.h>

namespace attnlab::ui {

class CellNumbers : public QCPLayerable {
    Q_OBJECT
public:
    /// Writes on the cells of `map` (one drawn cell per matrix entry), on the plot's layer
    /// `layer`.
    CellNumbers(QCPColorMap* map, const QString& layer);

    /// Writes the short form of each entry of `matrix` (core/formats/short_number.h: its exact text
    /// when short, else `digits` significant digits); one drawn cell per entry.
    void setTexts(const ViewMatrix& matrix, int digits = 3);
    /// Writes nothing.
    void clear();
    bool hasTexts() const { return rows_ > 0; }
    /// The font at its normal size, and the smallest it may shrink to (points).
    void setFont(const QFont& font, double smallestPoints);
    /// The text written in cell (row, column) now: empty when there is none or the widest text
    /// of the map does not fit its cells.
    QString shownText(int row, int column) const;
    /// The cells' pixel size at the plot's current layout (0 x 0 without cells).
    QSizeF cellSize() const;
    /// The font the numbers are written in at that size.
    QFont shownFont() const { return fittedFont(); }

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
    QRect clipRect() const override;
    void draw(QCPPainter* painter) override;

private:
    QRectF cellRect(int row, int column) const;
    /// The font for the cells' current size (cached per size).
    const QFont& fittedFont() const;

    QCPColorMap* map_;
    QFont font_;
    double smallest_ = 6;
    QStringList texts_;
    int rows_ = 0, columns_ = 0;
    mutable QSizeF fittedFor_; // the cell size fitted_ was chosen for
    mutable QFont fitted_;
    mutable bool allFit_ = false; // every text fits its cell in fitted_
};

} // namespace attnlab::ui
