// SPDX-License-Identifier: GPL-3.0-or-later
// Combo boxes whose items carry the enum value they stand for as item data, so that a choice
// maps to its value explicitly and not by the item's position in the list.
#pragma once

#include <QComboBox>
#include <QString>

namespace attnlab::ui {

/// Appends an item showing `text` that stands for `value`.
template <class Enum>
void addEnumItem(QComboBox* box, const QString& text, Enum value) {
    box->addItem(text, int(value));
}

/// The value item `index` stands for.
template <class Enum>
Enum enumAt(const QComboBox* box, int index) {
    return Enum(box->itemData(index).toInt());
}

/// Makes the item standing for `value` current.
template <class Enum>
void selectEnum(QComboBox* box, Enum value) {
    box->setCurrentIndex(box->findData(int(value)));
}

} // namespace attnlab::ui
