// SPDX-License-Identifier: GPL-3.0-or-later
// The Probe Program dialog (probe_dialog.h).
#include "ui/panels/probe_dialog.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>

namespace attnlab::ui {

namespace {

QSpinBox* probeSpinBox(int low, int high, int value, const QString& prefix = QString()) {
    auto* box = new QSpinBox;
    box->setRange(low, high);
    box->setValue(value);
    box->setPrefix(prefix);
    return box;
}

/// A row of widgets as one field of a form.
QWidget* formRow(std::initializer_list<QWidget*> widgets, bool stretch = false) {
    auto* w = new QWidget;
    auto* layout = new QHBoxLayout(w);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QWidget* widget : widgets)
        layout->addWidget(widget, widget == *widgets.begin() && !stretch ? 1 : 0);
    if (stretch) layout->addStretch();
    return w;
}

} // namespace

ProbeDialog::ProbeDialog(int n, int d, int layer, QWidget* parent)
    : QDialog(parent), layer_(layer), program_(new QLineEdit), arguments_(new QLineEdit),
      drawn_(new QRadioButton("drawn:")), tokens_(probeSpinBox(1, 4096, 16, "N ")),
      features_(probeSpinBox(1, 4096, 8, "D ")), seed_(probeSpinBox(0, 2147483647, 1, "seed ")),
      mask_(new QComboBox), maskText_(new QLineEdit), chooseMask_(new QPushButton("Choose…")),
      persistent_(new QCheckBox("persistent: started once, probed again on each token edit")),
      timeout_(probeSpinBox(1, 86400, 120)), run_(new QPushButton("Run")) {
    setWindowTitle("Probe a program");
    program_->setPlaceholderText("/usr/bin/python3");
    arguments_->setPlaceholderText("examples/probe/numpy_attention.py --mask causal");
    const QSettings settings;
    program_->setText(settings.value("probe/program").toString());
    arguments_->setText(settings.value("probe/arguments").toString());
    auto* chooseProgram = new QPushButton("Choose…");
    connect(chooseProgram, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Choose the program to probe",
                                                          QFileInfo(program_->text()).path());
        if (!path.isEmpty()) program_->setText(path);
    });
    // Two short lines: a word-wrapped label in a form is given too little height.
    auto* how = new QLabel("It runs as PROGRAM ARGUMENTS IN.npy OUT.npy, with your rights.\nThe "
                           "arguments are split into words (quotes keep spaces); no shell.");
    how->setTextFormat(Qt::PlainText);

    auto* tokensInput =
        new QRadioButton(QString("the token editor's values (%1 × %2)").arg(n).arg(d));
    tokensInput->setChecked(true);
    auto* inputs = new QButtonGroup(this);
    inputs->addButton(tokensInput);
    inputs->addButton(drawn_);
    seed_->setToolTip("The seed of the drawn tokens' standard normal values");

    mask_->addItem(editorMaskText(layer));
    mask_->addItem("none");
    mask_->addItem("a mask specification");
    mask_->addItem("a .npy file");
    connect(chooseMask_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Choose the intended mask",
                                                          QString(), "NumPy masks (*.npy)");
        if (!path.isEmpty()) maskText_->setText(path);
    });
    persistent_->setChecked(true);
    timeout_->setSuffix(" s");
    timeout_->setToolTip("The longest one call may take; then the program's process group is "
                         "ended");

    auto* form = new QFormLayout;
    form->addRow("Program:", formRow({program_, chooseProgram}));
    form->addRow("Arguments:", arguments_);
    form->addRow(how);
    form->addRow("Input:", tokensInput);
    form->addRow(QString(), formRow({drawn_, tokens_, features_, seed_}, true));
    form->addRow("Intended mask:", mask_);
    form->addRow(QString(), formRow({maskText_, chooseMask_}));
    form->addRow(QString(), persistent_);
    form->addRow("Timeout of one call:", formRow({timeout_}, true));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    buttons->addButton(run_, QDialogButtonBox::AcceptRole);
    run_->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    setMinimumWidth(560);

    for (QLineEdit* field : {program_, arguments_, maskText_})
        connect(field, &QLineEdit::textChanged, this, &ProbeDialog::refresh);
    connect(drawn_, &QRadioButton::toggled, this, &ProbeDialog::refresh);
    connect(mask_, &QComboBox::currentIndexChanged, this, &ProbeDialog::refresh);
    refresh();
}

void ProbeDialog::refresh() {
    for (QSpinBox* box : {tokens_, features_, seed_})
        box->setEnabled(drawn_->isChecked());
    const int mask = mask_->currentIndex();
    const bool text = mask == MaskSpecification || mask == MaskFile;
    maskText_->setVisible(text);
    chooseMask_->setVisible(mask == MaskFile);
    maskText_->setPlaceholderText(mask == MaskFile
                                      ? "a boolean N x N mask.npy"
                                      : "causal, window:3, causal_window:2, prefix:4, all");
    run_->setEnabled(!program_->text().trimmed().isEmpty() &&
                     (!text || !maskText_->text().trimmed().isEmpty()));
}

ProbeChoice ProbeDialog::choice() const {
    ProbeChoice c;
    c.command << program_->text().trimmed() << QProcess::splitCommand(arguments_->text());
    c.persistent = persistent_->isChecked();
    c.timeoutSeconds = timeout_->value();
    c.input = drawn_->isChecked() ? ProbeChoice::Input::Drawn : ProbeChoice::Input::Tokens;
    c.tokens = tokens_->value();
    c.features = features_->value();
    c.seed = qulonglong(seed_->value());
    const int mask = mask_->currentIndex();
    c.mask = mask == EditorMask ? ProbeChoice::Mask::Editor
             : mask == NoMask   ? ProbeChoice::Mask::None
                                : ProbeChoice::Mask::Specification;
    c.maskLayer = layer_;
    c.maskSpec = maskText_->text().trimmed();
    return c;
}

void ProbeDialog::accept() {
    QSettings settings; // only to fill the fields next time: nothing runs without this dialog
    settings.setValue("probe/program", program_->text().trimmed());
    settings.setValue("probe/arguments", arguments_->text());
    QDialog::accept();
}

} // namespace attnlab::ui
