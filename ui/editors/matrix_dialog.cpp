// SPDX-License-Identifier: GPL-3.0-or-later
// Editing a matrix in a dialog.
#include "ui/editors/matrix_dialog.h"

#include "ui/editors/token_table_model.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace attnlab::ui {

MatrixDialog::MatrixDialog(const QString& title, const Matrix<Rational>& values, QWidget* parent)
    : QDialog(parent), model_(new TokenTableModel(this)), message_(new QLabel) {
    setWindowTitle(title);
    model_->setHeaderPrefixes("r", "c");
    model_->setValues(values);
    auto* table = new QTableView;
    table->setModel(model_);
    table->horizontalHeader()->setDefaultSectionSize(64);
    message_->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(QString("%1 × %2; type an integer, a fraction such as 1/3 or a "
                                         "decimal")
                                     .arg(values.rows())
                                     .arg(values.cols())));
    layout->addWidget(table, 1);
    layout->addWidget(message_);
    layout->addWidget(buttons);
    resize(520, 360);
    // The dialog keeps its own copy: an accepted cell replaces the shown matrix.
    connect(model_, &TokenTableModel::edited, model_, [this](const Matrix<Rational>& next) {
        model_->setValues(next);
        message_->clear();
    });
    connect(model_, &TokenTableModel::refused, message_, &QLabel::setText);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

const Matrix<Rational>& MatrixDialog::values() const {
    return model_->values();
}

} // namespace attnlab::ui
