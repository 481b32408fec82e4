// SPDX-License-Identifier: GPL-3.0-or-later
// The token matrix as an editable table: a thin adapter that shows the scenario's tokens and turns
// a typed cell into an edit request. Parsing refuses anything that is not a finite number and keeps
// the last valid value.
#pragma once

#include "core/base/scalar.h"

#include <QAbstractTableModel>

#include <vector>

namespace attnlab::ui {

class TokenTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    /// Shows `values` (exact) as the table; returns the columns whose values changed (all of them
    /// when the shape did), the ones a view fitted to its contents needs to fit again.
    std::vector<int> setValues(Matrix<Rational> values);
    const Matrix<Rational>& values() const { return values_; }
    /// Header labels: rows `row0, row1, ...`, columns `col0, ...` (tokens: "x" and "d").
    void setHeaderPrefixes(const QString& row, const QString& col) {
        rowPrefix_ = row;
        colPrefix_ = col;
    }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Parses the text; on success emits `edited` with the whole new matrix (the table itself
    /// changes when the document accepts it), on failure emits `refused` and returns false.
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;

signals:
    void edited(const Matrix<Rational>& values, const QString& what);
    void refused(const QString& message);

private:
    Matrix<Rational> values_;
    QString rowPrefix_ = "x", colPrefix_ = "d";
};

} // namespace attnlab::ui
