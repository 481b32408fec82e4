// SPDX-License-Identifier: GPL-3.0-or-later
// File > Probe Program…: the program to probe (a file chooser fills its path; an interpreter is
// simply the program, the script its first argument), its arguments (split into a list as a
// command line is, never given to a shell), the input (the token editor's values or drawn ones),
// the intended mask (the mask editor's, none, a specification or a .npy file), persistent mode
// and the timeout of one call. Its Run button is the only thing that starts a program; the last
// program and arguments are remembered only to fill the fields next time.
#pragma once

#include "ui/document/probe_choice.h"

#include <QDialog>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace attnlab::ui {

class ProbeDialog : public QDialog {
    Q_OBJECT
public:
    /// The mask editor shows layer `layer`; the token editor holds n x d values.
    ProbeDialog(int n, int d, int layer, QWidget* parent = nullptr);

    /// The choices made (the command split into its words).
    ProbeChoice choice() const;

    enum MaskItem { EditorMask, NoMask, MaskSpecification, MaskFile };
    QLineEdit* programField() const { return program_; }
    QLineEdit* argumentsField() const { return arguments_; }
    QRadioButton* drawnButton() const { return drawn_; }
    QSpinBox* tokensBox() const { return tokens_; }
    QSpinBox* featuresBox() const { return features_; }
    QComboBox* maskBox() const { return mask_; }
    QLineEdit* maskField() const { return maskText_; }
    QCheckBox* persistentBox() const { return persistent_; }
    QSpinBox* timeoutBox() const { return timeout_; }
    QPushButton* runButton() const { return run_; }

    void accept() override;

private:
    /// Enables what the choices make relevant, and Run once there is a program (and a mask to
    /// read when one is asked for).
    void refresh();

    int layer_;
    QLineEdit* program_;
    QLineEdit* arguments_;
    QRadioButton* drawn_;
    QSpinBox* tokens_;
    QSpinBox* features_;
    QSpinBox* seed_;
    QComboBox* mask_;
    QLineEdit* maskText_;
    QPushButton* chooseMask_;
    QCheckBox* persistent_;
    QSpinBox* timeout_;
    QPushButton* run_;
};

} // namespace attnlab::ui
