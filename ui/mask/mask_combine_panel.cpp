// SPDX-License-Identifier: GPL-3.0-or-later
// The and/or/not panel.
#include "ui/mask/mask_combine_panel.h"

#include "ui/mask/mask_kind_form.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>

namespace attnlab::ui {

MaskCombinePanel::MaskCombinePanel(QWidget* parent)
    : QWidget(parent), operand_(new MaskKindForm(this)) {
    operand_->setObjectName("operand");
    operand_->setSpec(MaskSpec::window(1));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(operand_);
    auto* buttons = new QHBoxLayout;
    auto addButton = [&](const char* name, const QString& text, const QString& tip) {
        auto* button = new QPushButton(text, this);
        button->setObjectName(name);
        button->setToolTip(tip);
        // Narrower than a push button's usual 80 px where the panel is (300 px at 1280 x 720).
        button->setMinimumWidth(button->fontMetrics().horizontalAdvance(text) + 24);
        buttons->addWidget(button);
        return button;
    };
    connect(addButton("and", tr("and"), tr("Allowed where both masks allow")),
            &QPushButton::clicked, this, [this] { emit andRequested(operand()); });
    connect(addButton("or", tr("or"), tr("Allowed where either mask allows")),
            &QPushButton::clicked, this, [this] { emit orRequested(operand()); });
    connect(addButton("not", tr("not"), tr("Swap allowed and blocked in the current mask")),
            &QPushButton::clicked, this, &MaskCombinePanel::notRequested);
    buttons->addStretch();
    layout->addLayout(buttons);
}

void MaskCombinePanel::setTokenCount(int n) {
    operand_->setTokenCount(n);
}

MaskSpec MaskCombinePanel::operand() const {
    return operand_->spec();
}

} // namespace attnlab::ui
