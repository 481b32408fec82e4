// SPDX-License-Identifier: GPL-3.0-or-later
// Combining the edited mask with a second one: the second mask chosen inline by kind and
// parameters, and buttons for "and", "or" and "not" (the last needs no second mask).
#pragma once

#include "core/spec/mask.h"

#include <QWidget>

namespace attnlab::ui {

class MaskKindForm;

class MaskCombinePanel : public QWidget {
    Q_OBJECT
public:
    explicit MaskCombinePanel(QWidget* parent = nullptr);
    /// Sets the largest parameter values of the second mask to n tokens.
    void setTokenCount(int n);
    /// The second mask as the fields describe it.
    MaskSpec operand() const;

signals:
    void andRequested(const MaskSpec& operand);
    void orRequested(const MaskSpec& operand);
    void notRequested();

private:
    MaskKindForm* operand_;
};

} // namespace attnlab::ui
