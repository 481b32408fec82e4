// SPDX-License-Identifier: GPL-3.0-or-later
// The kind-and-parameters form of a mask.
#include "ui/mask/mask_kind_form.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>

#include <numeric>

namespace attnlab::ui {

namespace {
struct KindEntry {
    MaskSpec::Kind kind;
    const char* name;
    const char* formula;
};
// Every kind, in the order properties.md §1.5 lists them; the last four are shown, not chosen.
const KindEntry kKinds[] = {
    {MaskSpec::Kind::All, "all", "every entry allowed"},
    {MaskSpec::Kind::None, "none", "no entry allowed"},
    {MaskSpec::Kind::Causal, "causal", "t ≤ s"},
    {MaskSpec::Kind::Window, "window", "|s − t| ≤ r"},
    {MaskSpec::Kind::CausalWindow, "causal_window", "s − r ≤ t ≤ s"},
    {MaskSpec::Kind::Prefix, "prefix", "t < p or t ≤ s (prefix-LM)"},
    {MaskSpec::Kind::Blocks, "blocks", "same segment (document masking)"},
    {MaskSpec::Kind::Dilated, "dilated", "|s − t| ≤ r·k and k divides s − t"},
    {MaskSpec::Kind::Global, "global", "the first g tokens attend to and are attended by all"},
    {MaskSpec::Kind::Custom, "custom", "painted cells"},
    {MaskSpec::Kind::And, "and", "a combination"},
    {MaskSpec::Kind::Or, "or", "a combination"},
    {MaskSpec::Kind::Not, "not", "a combination"},
};

bool chosenOnlyAsGiven(MaskSpec::Kind k) {
    return k == MaskSpec::Kind::Custom || k == MaskSpec::Kind::And || k == MaskSpec::Kind::Or ||
           k == MaskSpec::Kind::Not;
}
// A global's base the form can edit: a simple kind other than global and all.
bool editableBase(MaskSpec::Kind k) {
    return !chosenOnlyAsGiven(k) && k != MaskSpec::Kind::Global && k != MaskSpec::Kind::All;
}

constexpr int kAsGiven = -1;

std::vector<int> parseSizes(const QString& text) {
    std::vector<int> sizes;
    for (const QString& part : text.split(',', Qt::SkipEmptyParts))
        sizes.push_back(part.trimmed().toInt());
    return sizes;
}
QString sizesText(const std::vector<int>& sizes) {
    QStringList parts;
    for (int s : sizes)
        parts << QString::number(s);
    return parts.join(',');
}
} // namespace

MaskKindForm::MaskKindForm(QWidget* parent)
    : QWidget(parent), kind_(new QComboBox(this)), base_(new QComboBox(this)) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    kind_->setObjectName("kind");
    base_->setObjectName("base");
    for (const KindEntry& e : kKinds) {
        kind_->addItem(e.name, int(e.kind));
        kind_->setItemData(kind_->count() - 1, QString(e.formula), Qt::ToolTipRole);
        if (chosenOnlyAsGiven(e.kind))
            qobject_cast<QStandardItemModel*>(kind_->model())
                ->item(kind_->count() - 1)
                ->setEnabled(false);
        if (editableBase(e.kind)) base_->addItem(e.name, int(e.kind));
    }
    base_->addItem(tr("(as given)"), kAsGiven);
    qobject_cast<QStandardItemModel*>(base_->model())->item(base_->count() - 1)->setEnabled(false);
    base_->setCurrentIndex(base_->findData(int(MaskSpec::Kind::Causal)));
    form->addRow(tr("Kind"), kind_);
    form->addRow(tr("Base"), base_);
    radius_ = addSpin("radius", tr("Radius r"), 0, 1);
    dilation_ = addSpin("dilation", tr("Dilation k"), 1, 2);
    length_ = addSpin("length", tr("Prefix p"), 0, 2);
    count_ = addSpin("count", tr("Global g"), 0, 1);
    sizes_ = new QLineEdit("2,2", this);
    sizes_->setObjectName("sizes");
    sizes_->setPlaceholderText("2,3,1");
    sizes_->setToolTip(tr("Block sizes, comma separated; they must add up to n"));
    sizes_->setValidator(new QRegularExpressionValidator(
        QRegularExpression(R"(\s*\d+(\s*,\s*\d+)*\s*,?\s*)"), this));
    form->addRow(tr("Sizes"), sizes_);

    connect(kind_, &QComboBox::currentIndexChanged, this, &MaskKindForm::onKindChanged);
    connect(base_, &QComboBox::currentIndexChanged, this, &MaskKindForm::onKindChanged);
    for (QSpinBox* spin : {radius_, dilation_, length_, count_})
        connect(spin, &QSpinBox::valueChanged, this, &MaskKindForm::onParameterChanged);
    connect(sizes_, &QLineEdit::editingFinished, this, [this] {
        if (sizes_->isModified()) onParameterChanged();
        sizes_->setModified(false);
    });
    showFields();
}

QSpinBox* MaskKindForm::addSpin(const char* name, const QString& label, int minimum, int value) {
    auto* spin = new QSpinBox(this);
    spin->setObjectName(name);
    spin->setRange(minimum, 4096);
    spin->setValue(value);
    spin->setKeyboardTracking(false); // one edit when typing "12", not "1" then "12"
    static_cast<QFormLayout*>(layout())->addRow(label, spin);
    return spin;
}

MaskSpec::Kind MaskKindForm::kind() const {
    return MaskSpec::Kind(kind_->currentData().toInt());
}
MaskSpec::Kind MaskKindForm::baseKind() const {
    return MaskSpec::Kind(base_->currentData().toInt());
}

MaskSpec MaskKindForm::simpleSpec(Kind k) const {
    switch (k) {
    case Kind::None:
        return MaskSpec::none();
    case Kind::Causal:
        return MaskSpec::causal();
    case Kind::Window:
        return MaskSpec::window(radius_->value());
    case Kind::CausalWindow:
        return MaskSpec::causalWindow(radius_->value());
    case Kind::Prefix:
        return MaskSpec::prefix(length_->value());
    case Kind::Blocks:
        return MaskSpec::blocks(parseSizes(sizes_->text()));
    case Kind::Dilated:
        return MaskSpec::dilated(radius_->value(), dilation_->value());
    default:
        return MaskSpec::all();
    }
}

MaskSpec MaskKindForm::spec() const {
    const Kind k = kind();
    if (chosenOnlyAsGiven(k)) return kept_;
    if (k != Kind::Global) return simpleSpec(k);
    const bool baseAsGiven = base_->currentData().toInt() == kAsGiven;
    return MaskSpec::global(count_->value(),
                            baseAsGiven ? kept_.operands.front() : simpleSpec(baseKind()));
}

void MaskKindForm::setSpec(const MaskSpec& spec) {
    const QSignalBlocker blockers[] = {QSignalBlocker(kind_),   QSignalBlocker(base_),
                                       QSignalBlocker(radius_), QSignalBlocker(dilation_),
                                       QSignalBlocker(length_), QSignalBlocker(count_)};
    kept_ = spec;
    kind_->setCurrentIndex(kind_->findData(int(spec.kind)));
    const MaskSpec* params = &spec;
    if (spec.kind == Kind::Global) {
        count_->setValue(spec.count);
        const MaskSpec& base = spec.operands.front();
        base_->setCurrentIndex(
            base_->findData(editableBase(base.kind) ? int(base.kind) : kAsGiven));
        params = &base;
    } else if (base_->currentData().toInt() == kAsGiven) {
        base_->setCurrentIndex(base_->findData(int(Kind::Causal))); // "as given" needs a global
    }
    if (params->kind == Kind::Window || params->kind == Kind::CausalWindow ||
        params->kind == Kind::Dilated)
        radius_->setValue(params->radius);
    if (params->kind == Kind::Dilated) dilation_->setValue(params->dilation);
    if (params->kind == Kind::Prefix) length_->setValue(params->length);
    if (params->kind == Kind::Blocks) sizes_->setText(sizesText(params->sizes));
    showFields();
}

void MaskKindForm::setTokenCount(int n) {
    const int top = std::max(n, 1);
    for (QSpinBox* spin : {radius_, dilation_, length_, count_}) {
        const QSignalBlocker blocker(spin);
        spin->setMaximum(top);
    }
    const std::vector<int> sizes = parseSizes(sizes_->text());
    if (kind() != Kind::Blocks && std::accumulate(sizes.begin(), sizes.end(), 0) != n)
        sizes_->setText(sizesText(n > 1 ? std::vector<int>{n / 2, n - n / 2} : std::vector{n}));
}

void MaskKindForm::showFields() {
    const Kind k = kind();
    const Kind b = k == Kind::Global ? baseKind() : k;
    auto uses = [&](std::initializer_list<Kind> kinds) {
        for (Kind x : kinds)
            if (x == k || x == b) return true;
        return false;
    };
    auto* form = static_cast<QFormLayout*>(layout());
    form->setRowVisible(base_, k == Kind::Global);
    form->setRowVisible(radius_, uses({Kind::Window, Kind::CausalWindow, Kind::Dilated}));
    form->setRowVisible(dilation_, uses({Kind::Dilated}));
    form->setRowVisible(length_, uses({Kind::Prefix}));
    form->setRowVisible(count_, k == Kind::Global);
    form->setRowVisible(sizes_, uses({Kind::Blocks}));
}

void MaskKindForm::onKindChanged() {
    showFields();
    emit specEdited(spec());
}

void MaskKindForm::onParameterChanged() {
    emit specEdited(spec());
}

} // namespace attnlab::ui
