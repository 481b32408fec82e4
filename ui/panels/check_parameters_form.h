// SPDX-License-Identifier: GPL-3.0-or-later
// The parameters of the selected property (its check's declared parameters), under the verdict
// table: a spin box for an integer, a line for an integer or a list, a drop-down for a word; each
// starts at "auto" (the check's default for this scenario, shown beside it), and "all to auto"
// returns every one there in one click. A change is sent as the property's parameters, the JSON
// `--property NAME:key=value` gives (cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include <QWidget>

class QFormLayout;
class QLabel;
class QPushButton;

namespace attnlab::ui {

class CheckParametersForm : public QWidget {
    Q_OBJECT
public:
    explicit CheckParametersForm(QWidget* parent = nullptr);

    /// Shows the parameters of `property`: the values set in the window (`chosen`, an object)
    /// and, for those left to auto, what they are now (`effective`, the parameters it runs with).
    /// Hidden for a property without parameters or none.
    void showProperty(const QString& property, const nlohmann::json& chosen,
                      const nlohmann::json& effective);
    QString property() const { return property_; }
    /// The field of parameter `name` (a QSpinBox, QLineEdit or QComboBox), or nullptr.
    QWidget* field(const QString& name) const;
    /// Sets every parameter back to auto (its button).
    QPushButton* resetButton() const { return reset_; }

signals:
    /// The parameters set for `property` changed: `params` holds those not left to auto.
    void parametersChanged(const QString& property, const nlohmann::json& params);
    /// Text that is not a value of its parameter: the message; the field shows the previous value.
    void refused(const QString& message);

private:
    /// Sets (or, with null, returns to auto) parameter `name` and sends the change.
    void set(const std::string& name, const nlohmann::json& value);

    QString property_;
    nlohmann::json chosen_;
    nlohmann::json effective_;
    /// Builds the fields of property_ for chosen_ and effective_.
    void buildFields();

    QLabel* title_;
    QPushButton* reset_;
    QFormLayout* rows_;
};

} // namespace attnlab::ui
