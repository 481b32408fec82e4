// SPDX-License-Identifier: GPL-3.0-or-later
// The figure of what the views panel shows: the side-by-side maps of the shown layer and head
// (all three rows, or one), with their titles, token labels and masks, the original and
// transformed maps of a row on one colour range, under the scenario's name, the transformation,
// layer and head, and a verdict.
#pragma once

#include "ui/views/figure.h"

namespace attnlab::ui {

class ViewsPanel;

/// The figure of `views` now: row `row` (a ViewsPanel::Row) or, for -1, all three, titled
/// `scenario`, with `verdict` as its last line when not empty. Throws std::runtime_error when
/// nothing has been computed yet.
Figure viewsFigure(const ViewsPanel& views, const QString& scenario, const QString& verdict,
                   int row = -1);

} // namespace attnlab::ui
