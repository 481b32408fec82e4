// SPDX-License-Identifier: GPL-3.0-or-later
// The mask diff: the current mask (A) against another one (B) chosen by kind and parameters,
// or two library conventions compared at the same number (inclusive radius vs "W keys",
// top-left vs bottom-right causal), cell by cell with the counts. Opened on a window or causal
// mask it starts on that mask's convention pair at its own number, and "Use B" makes the other
// convention the layer's mask.
#pragma once

#include "core/spec/mask.h"
#include "core/spec/mask_diff.h"

#include <QDialog>

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnlab::ui {

class MaskDiffView;
class MaskKindForm;

class MaskDiffDialog : public QDialog {
    Q_OBJECT
public:
    explicit MaskDiffDialog(QWidget* parent = nullptr);
    /// The mask the "current mask vs another" preset compares, for n tokens.
    void setCurrent(const MaskSpec& spec, int n);
    /// Chooses a preset: 0 = current mask vs another, 1… = the convention pairs of core.
    void choosePreset(int index);
    /// Shows the current mask's convention pair at its own number (conventionOf), or the
    /// current mask against another when it has none.
    void startFromCurrent();
    /// The comparison on display.
    const MaskDiff& diff() const { return diff_; }

signals:
    /// "Use B as this layer's mask" was pressed: B of the comparison on display.
    void useMask(const attnlab::MaskSpec& mask);

private:
    void refresh();
    void compare(const MaskSpec& a, const MaskSpec& b, const QString& labelA,
                 const QString& labelB);
    QString alignmentNote() const;

    QFormLayout* form_;
    QComboBox* preset_;
    QSpinBox* parameter_;
    MaskKindForm* other_;
    QLabel* labelA_;
    QLabel* labelB_;
    QLabel* note_;
    QLabel* counts_;
    MaskDiffView* view_;
    QPushButton* useB_;
    MaskSpec current_;
    MaskSpec b_;
    int n_ = 0;
    MaskDiff diff_;
};

} // namespace attnlab::ui
