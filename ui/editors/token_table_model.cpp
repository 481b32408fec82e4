// SPDX-License-Identifier: GPL-3.0-or-later
// Token table adapter.
#include "ui/editors/token_table_model.h"

namespace attnlab::ui {

std::vector<int> TokenTableModel::setValues(Matrix<Rational> values) {
    const bool sameShape = values.rows() == values_.rows() && values.cols() == values_.cols();
    std::vector<int> changed;
    for (Eigen::Index c = 0; c < values.cols(); ++c)
        if (!sameShape || values.col(c) != values_.col(c)) changed.push_back(int(c));
    if (!sameShape) {
        beginResetModel();
        values_ = std::move(values);
        endResetModel();
        return changed;
    }
    values_ = std::move(values);
    for (int c : changed)
        emit dataChanged(index(0, c), index(rowCount() - 1, c));
    return changed;
}

int TokenTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(values_.rows());
}

int TokenTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(values_.cols());
}

QVariant TokenTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Rational& q = values_(index.row(), index.column());
    if (role == Qt::EditRole) return QString::fromStdString(rationalText(q));
    if (role == Qt::DisplayRole) {
        // Small fractions read best as written (1/3); drawn floats as decimals (0.5057; the cell
        // editor and tooltip keep every digit).
        if (q.get_den() < 1000) return QString::fromStdString(rationalText(q));
        return QString::number(toDouble(q), 'g', 4);
    }
    if (role == Qt::ToolTipRole)
        return QString("≈ %1").arg(toDouble(values_(index.row(), index.column())), 0, 'g', 12);
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant TokenTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    return orientation == Qt::Horizontal ? QString("d%1").arg(section)
                                         : QString("x%1").arg(section);
}

Qt::ItemFlags TokenTableModel::flags(const QModelIndex& index) const {
    return QAbstractTableModel::flags(index) | Qt::ItemIsEditable;
}

bool TokenTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::EditRole) return false;
    try {
        const Rational q = parseRational(value.toString().trimmed().toStdString());
        if (q == values_(index.row(), index.column())) return true;
        Matrix<Rational> next = values_;
        next(index.row(), index.column()) = q;
        emit edited(next, QString("edit %1%2[%3]")
                              .arg(rowPrefix_ == "x" ? "token x" : "entry ")
                              .arg(index.row())
                              .arg(index.column()));
        return true;
    } catch (const std::exception& e) {
        emit refused(QString("%1%2[%3]: %4 — the previous value is kept")
                         .arg(rowPrefix_ == "x" ? "token x" : "entry ")
                         .arg(index.row())
                         .arg(index.column())
                         .arg(QString::fromStdString(e.what())));
        return false;
    }
}

} // namespace attnlab::ui
