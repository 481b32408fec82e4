// SPDX-License-Identifier: GPL-3.0-or-later
// Token ids and strings as a table.
#include "ui/editors/token_ids_model.h"

namespace attnlab::ui {

void TokenIdsModel::setTokens(const TokenSpec& tokens) {
    beginResetModel();
    ids_ = tokens.ids;
    labels_ = tokens.labels;
    endResetModel();
}

int TokenIdsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(ids_.size());
}

int TokenIdsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TokenIdsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || role != Qt::DisplayRole) return {};
    const auto row = std::size_t(index.row());
    if (index.column() == Id) return QVariant::fromValue(ids_[row]);
    return row < labels_.size() ? QString::fromStdString(labels_[row]) : QString();
}

QVariant TokenIdsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return QString("x%1").arg(section);
    return section == Id ? QString("id") : QString("token");
}

} // namespace attnlab::ui
