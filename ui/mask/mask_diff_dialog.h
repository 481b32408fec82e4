// The mask diff: the current mask (A) against another one (B) chosen by kind and parameters,
// or two library conventions compared at the same number (inclusive radius vs "W keys",
// top-left vs bottom-right causal), cell by cell with the counts.
#pragma once

#include "core/spec/mask.h"
#include "core/spec/mask_diff.h"

#include <QDialog>

class QComboBox;
class QFormLayout;
class QLabel;
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
    /// The comparison on display.
    const MaskDiff& diff() const { return diff_; }

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
    MaskSpec current_;
    int n_ = 0;
    MaskDiff diff_;
};

} // namespace attnlab::ui
