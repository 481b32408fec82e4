// SPDX-License-Identifier: GPL-3.0-or-later
// What a heatmap says in words about its values: the colour bar's label with a difference's
// tolerance (drawn neutral) said as fully as the bar has room for, the words across a zero or
// rounding-only difference, and the tooltip of one cell.
#pragma once

#include "core/explore/side_by_side.h"
#include "core/formats/color_maps.h"

#include <QString>
#include <QStringList>

namespace attnlab::ui {

/// The colour bar's `labels` (longest first) for a matrix of this `tolerance`: where it is
/// positive, first the longest label with the tolerance said in three ever shorter forms.
QStringList colourLabelsWithTolerance(const QStringList& labels, double tolerance);
/// "exactly 0" or "rounding only" (within its tolerance) for such a difference on the diverging
/// `scale`; empty otherwise.
QString differenceMessage(ColourScale scale, const ViewMatrix& matrix);
/// The tooltip of token cell (row, column) of `matrix`, naming the tokens by `rowLabels` and
/// `columnLabels` where they have them; empty outside the matrix.
QString cellTooltip(const ViewMatrix& matrix, const QStringList& rowLabels,
                    const QStringList& columnLabels, int row, int column);

} // namespace attnlab::ui
