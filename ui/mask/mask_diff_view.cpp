// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing a mask diff.
#include "ui/mask/mask_diff_view.h"

#include "ui/mask/mask_palette.h"

namespace attnlab::ui {

MaskDiffView::MaskDiffView(QWidget* parent) : CellGridView(parent) {}

void MaskDiffView::setDiff(const MaskDiff& diff) {
    Q_ASSERT(diff.rows == diff.cols);
    std::vector<unsigned char> categories(diff.cells.size());
    for (std::size_t i = 0; i < diff.cells.size(); ++i)
        categories[i] = static_cast<unsigned char>(diff.cells[i]);
    setCells(diff.rows, std::move(categories));
}

QBrush MaskDiffView::cellBrush(unsigned char category) const {
    switch (DiffCell(category)) {
    case DiffCell::Neither:
        return mask_palette::blocked(palette());
    case DiffCell::Both:
        return mask_palette::both(palette());
    case DiffCell::OnlyA:
        return mask_palette::onlyA();
    case DiffCell::OnlyB:
        return QBrush(mask_palette::onlyB(), Qt::DiagCrossPattern);
    }
    return {};
}

QString MaskDiffView::cellText(int s, int t) const {
    switch (DiffCell(category(s, t))) {
    case DiffCell::Neither:
        return tr("blocked in both");
    case DiffCell::Both:
        return tr("allowed in both");
    case DiffCell::OnlyA:
        return tr("allowed only in A");
    case DiffCell::OnlyB:
        return tr("allowed only in B");
    }
    return {};
}

} // namespace attnlab::ui
