// SPDX-License-Identifier: GPL-3.0-or-later
// Two masks compared cell by cell: only in A (orange, solid), only in B (blue, hatched), in
// both (neutral) or in neither (background). The comparison comes from core (mask_diff.h).
#pragma once

#include "core/spec/mask_diff.h"
#include "ui/mask/cell_grid_view.h"

namespace attnlab::ui {

class MaskDiffView : public CellGridView {
    Q_OBJECT
public:
    explicit MaskDiffView(QWidget* parent = nullptr);
    /// Shows a square diff.
    void setDiff(const MaskDiff& diff);

protected:
    QBrush cellBrush(unsigned char category) const override;
    QString cellText(int s, int t) const override;
};

} // namespace attnlab::ui
