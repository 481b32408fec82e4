// SPDX-License-Identifier: GPL-3.0-or-later
// Inputs that may narrow below the width of their longest content, so that an editor fits the
// narrow editors' panel of a small screen (280 px at 1280 x 720); where there is room they widen
// as their layout lets them.
#pragma once

#include <QAbstractItemView>
#include <QComboBox>
#include <QSpinBox>

namespace attnlab::ui {

/// Lets a spin box narrow to its prefix and `digits` digits, rather than keep room for its
/// largest value (the arrows and frame take about 32 px).
inline void narrowTo(QSpinBox* box, int digits) {
    box->setMinimumWidth(
        box->fontMetrics().horizontalAdvance(box->prefix() + QString(digits, '0')) + 32);
}

/// Lets a combo box narrow to about `characters` characters of its current item; its list, once
/// open, still shows every item whole. Call it after the items are added.
inline void narrowTo(QComboBox* box, int characters) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(characters);
    box->view()->setMinimumWidth(box->view()->sizeHintForColumn(0));
}

} // namespace attnlab::ui
