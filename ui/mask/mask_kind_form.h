// SPDX-License-Identifier: GPL-3.0-or-later
// A mask chosen by kind and parameters: a kind combo, spin boxes for radius, dilation, prefix
// length and global count (with the base kind of a global mask), and a text field for block
// sizes ("2,3,1"). Only the fields the kind uses are shown. Used for the edited mask and for
// the second operand of a combination or a diff. Composite and custom masks are shown by name
// and kept as given until the kind is changed.
#pragma once

#include "core/spec/mask.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace attnlab::ui {

class MaskKindForm : public QWidget {
    Q_OBJECT
public:
    explicit MaskKindForm(QWidget* parent = nullptr);
    /// Shows `spec`. Does not emit specEdited.
    void setSpec(const MaskSpec& spec);
    /// The mask the fields describe (block sizes that do not parse give an empty size list,
    /// which core refuses with a message).
    MaskSpec spec() const;
    /// Sets the largest parameter values to n tokens. Does not emit specEdited.
    void setTokenCount(int n);

signals:
    /// The user changed the kind or a parameter; sent once per change.
    void specEdited(const MaskSpec& spec);

private slots:
    void onKindChanged();
    void onParameterChanged();

private:
    using Kind = MaskSpec::Kind;
    QSpinBox* addSpin(const char* name, const QString& label, int minimum, int value);
    Kind kind() const;
    Kind baseKind() const;
    MaskSpec simpleSpec(Kind kind) const;
    void showFields();

    QComboBox* kind_;
    QComboBox* base_;
    QSpinBox* radius_;
    QSpinBox* dilation_;
    QSpinBox* length_;
    QSpinBox* count_;
    QLineEdit* sizes_;
    MaskSpec kept_; // a custom or composite spec (or a global's such base), as given
};

} // namespace attnlab::ui
