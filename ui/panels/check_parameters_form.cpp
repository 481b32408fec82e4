// SPDX-License-Identifier: GPL-3.0-or-later
// The selected property's parameter fields.
#include "ui/panels/check_parameters_form.h"

#include "core/checks/check_registry.h"
#include "core/checks/parameter_text.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attnlab::ui {

namespace {

constexpr int kAuto = -1; // a spin box's value for "auto" (its special value text)

// "auto (1, 7, 5)": what auto means now, or the default in words when nothing says more.
QString autoText(const attnlab::CheckParameter& p, const nlohmann::json& effective) {
    const std::string now =
        effective.contains(p.name) ? attnlab::parameterText(effective.at(p.name)) : p.defaultValue;
    return QString("auto (%1)").arg(QString::fromStdString(now));
}

} // namespace

CheckParametersForm::CheckParametersForm(QWidget* parent)
    : QWidget(parent), title_(new QLabel), reset_(new QPushButton("all to auto")),
      rows_(new QFormLayout) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(title_, 1);
    titleRow->addWidget(reset_);
    reset_->setToolTip("Return every parameter of this property to auto (its default for this "
                       "scenario)");
    connect(reset_, &QPushButton::clicked, this, [this] {
        chosen_ = nlohmann::json::object();
        buildFields();
        emit parametersChanged(property_, chosen_);
    });
    layout->addLayout(titleRow);
    layout->addLayout(rows_);
    rows_->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    hide();
}

QWidget* CheckParametersForm::field(const QString& name) const {
    return findChild<QWidget*>("parameter:" + name);
}

void CheckParametersForm::set(const std::string& name, const nlohmann::json& value) {
    if (value.is_null())
        chosen_.erase(name);
    else
        chosen_[name] = value;
    reset_->setEnabled(!chosen_.empty());
    emit parametersChanged(property_, chosen_);
}

void CheckParametersForm::showProperty(const QString& property, const nlohmann::json& chosen,
                                       const nlohmann::json& effective) {
    const nlohmann::json given = chosen.is_object() ? chosen : nlohmann::json::object();
    if (property == property_ && given == chosen_ && effective == effective_ &&
        rows_->rowCount() > 0)
        return; // the same fields: no flicker, no work on each edit
    property_ = property;
    chosen_ = given;
    effective_ = effective;
    buildFields();
}

void CheckParametersForm::buildFields() {
    while (rows_->rowCount() > 0)
        rows_->removeRow(0);
    reset_->setEnabled(!chosen_.empty());
    const attnlab::PropertyCheck* check = attnlab::findPropertyCheck(property_.toStdString());
    if (!check || check->parameters().empty()) {
        hide();
        return;
    }
    title_->setText(
        QString("<b>Parameters of %1</b>")
            .arg(QString::fromStdString(attnlab::propertyDisplayName(property_.toStdString()))
                     .toHtmlEscaped()));
    for (const attnlab::CheckParameter& p : check->parameters()) {
        const QString name = QString::fromStdString(p.name);
        const nlohmann::json value = chosen_.contains(p.name) ? chosen_.at(p.name) : nullptr;
        const QString tip =
            QString("%1 (%2), default: %3 %4")
                .arg(name, attnlab::parameterTypeName(p.type),
                     QString::fromStdString(p.defaultValue), QString::fromStdString(p.help));
        QWidget* field = nullptr;
        if (p.type == attnlab::CheckParameter::Type::Integer) {
            auto* spin = new QSpinBox;
            spin->setRange(kAuto, 1000000);
            spin->setSpecialValueText(autoText(p, effective_));
            spin->setKeyboardTracking(false); // typing "12" does not run "1" first
            spin->setValue(value.is_number_integer() ? value.get<int>() : kAuto);
            connect(spin, &QSpinBox::valueChanged, this, [this, key = p.name](int v) {
                set(key, v == kAuto ? nlohmann::json() : nlohmann::json(v));
            });
            field = spin;
        } else if (p.type == attnlab::CheckParameter::Type::IntegerOrList) {
            auto* line = new QLineEdit(QString::fromStdString(attnlab::parameterText(value)));
            line->setPlaceholderText(autoText(p, effective_));
            connect(line, &QLineEdit::editingFinished, this, [this, line, p] {
                const nlohmann::json previous =
                    chosen_.contains(p.name) ? chosen_.at(p.name) : nlohmann::json();
                try {
                    const nlohmann::json next =
                        attnlab::parameterValue(p, line->text().toStdString());
                    if (next != previous) set(p.name, next);
                } catch (const std::exception& e) {
                    line->setText(QString::fromStdString(attnlab::parameterText(previous)));
                    emit refused(QString::fromStdString(e.what()) +
                                 " — the previous value is kept");
                }
            });
            field = line;
        } else {
            auto* combo = new QComboBox;
            combo->addItem(autoText(p, effective_));
            for (const std::string& w : attnlab::parameterWords(p))
                combo->addItem(QString::fromStdString(w), QString::fromStdString(w));
            combo->setCurrentIndex(
                value.is_string()
                    ? std::max(0, combo->findData(QString::fromStdString(value.get<std::string>())))
                    : 0);
            connect(combo, &QComboBox::activated, this, [this, combo, key = p.name](int i) {
                set(key, i == 0 ? nlohmann::json()
                                : nlohmann::json(combo->itemData(i).toString().toStdString()));
            });
            field = combo;
        }
        field->setObjectName("parameter:" + name);
        field->setToolTip(tip);
        rows_->addRow(name, field);
    }
    show();
}

} // namespace attnlab::ui
