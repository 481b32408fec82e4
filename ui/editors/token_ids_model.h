// SPDX-License-Identifier: GPL-3.0-or-later
// The tokens of an imported model as a read-only table: per token its id in the checkpoint's
// vocabulary and its string (the embedding rows behind them are the checkpoint's, too wide to
// read as numbers). Ids are edited through the line above the table.
#pragma once

#include "core/spec/matrix_spec.h"

#include <QAbstractTableModel>

namespace attnlab::ui {

class TokenIdsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Label, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    void setTokens(const TokenSpec& tokens);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<long long> ids_;
    std::vector<std::string> labels_;
};

} // namespace attnlab::ui
