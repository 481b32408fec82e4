// SPDX-License-Identifier: GPL-3.0-or-later
// A dialog to edit one exact matrix cell by cell (a layer's weight matrix): the same table adapter
// as the tokens, a refused cell keeps its value and says why, OK hands the whole matrix back.
#pragma once

#include "core/base/scalar.h"

#include <QDialog>

class QLabel;

namespace attnlab::ui {

class TokenTableModel;

class MatrixDialog : public QDialog {
    Q_OBJECT
public:
    MatrixDialog(const QString& title, const Matrix<Rational>& values, QWidget* parent = nullptr);

    TokenTableModel* model() const { return model_; }
    const Matrix<Rational>& values() const;

private:
    TokenTableModel* model_;
    QLabel* message_;
};

} // namespace attnlab::ui
