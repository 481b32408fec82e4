// SPDX-License-Identifier: GPL-3.0-or-later
// The mask diff dialog.
#include "ui/mask/mask_diff_dialog.h"

#include "core/base/error.h"
#include "core/spec/mask_conventions.h"
#include "ui/mask/mask_diff_view.h"
#include "ui/mask/mask_kind_form.h"
#include "ui/mask/mask_palette.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attnlab::ui {

namespace {
// Core text for a rich-text label ("s−3 < t ≤ s" must not open a tag).
QString fromStd(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}
} // namespace

MaskDiffDialog::MaskDiffDialog(QWidget* parent)
    : QDialog(parent), form_(new QFormLayout), preset_(new QComboBox(this)),
      parameter_(new QSpinBox(this)), other_(new MaskKindForm(this)), labelA_(new QLabel(this)),
      labelB_(new QLabel(this)), note_(new QLabel(this)), counts_(new QLabel(this)),
      view_(new MaskDiffView(this)),
      useB_(new QPushButton(tr("Use B as this layer's mask"), this)) {
    setWindowTitle(tr("Mask diff"));
    preset_->setObjectName("preset");
    preset_->addItem(tr("current mask vs another mask"));
    for (const ConventionPair& pair : conventionPairs())
        preset_->addItem(QString::fromStdString(pair.title));
    parameter_->setObjectName("parameter");
    parameter_->setRange(1, 4096);
    parameter_->setValue(3);
    parameter_->setKeyboardTracking(false);
    parameter_->setToolTip(tr("The number both conventions are read with: radius r or W keys"));
    other_->setObjectName("other");
    other_->setSpec(MaskSpec::causal());

    form_->addRow(tr("Compare"), preset_);
    form_->addRow(tr("r = W ="), parameter_);
    form_->addRow(tr("B ="), other_);
    // The comparison scrolls where the screen is shorter than it; the buttons stay in view.
    auto* comparison = new QWidget(this);
    auto* layout = new QVBoxLayout(comparison);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form_);
    for (QLabel* label : {labelA_, labelB_, note_, counts_}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::RichText);
    }
    counts_->setObjectName("counts");
    note_->setObjectName("note");
    layout->addWidget(labelA_);
    layout->addWidget(labelB_);
    layout->addWidget(view_, 1);
    layout->addWidget(counts_);
    layout->addWidget(note_);
    auto* area = new QScrollArea(this);
    area->setWidget(comparison);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    useB_->setObjectName("useB");
    useB_->setToolTip(tr("Replace the layer's mask by B, e.g. the other library's convention"));
    buttons->addButton(useB_, QDialogButtonBox::ActionRole);
    connect(useB_, &QPushButton::clicked, this, [this] { emit useMask(b_); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* dialogLayout = new QVBoxLayout(this);
    dialogLayout->addWidget(area, 1);
    dialogLayout->addWidget(buttons);

    connect(preset_, &QComboBox::currentIndexChanged, this, &MaskDiffDialog::refresh);
    connect(parameter_, &QSpinBox::valueChanged, this, &MaskDiffDialog::refresh);
    connect(other_, &MaskKindForm::specEdited, this, &MaskDiffDialog::refresh);
    // 720 px tall where the screen has the room; on a smaller one (a 1280 x 720 projector) at
    // most 85 % of its height, which leaves room for the title bar.
    const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen();
    const QRect room = screen->availableGeometry();
    resize(std::min(480, room.width()), std::min(720, room.height() * 85 / 100));
    refresh();
}

void MaskDiffDialog::setCurrent(const MaskSpec& spec, int n) {
    current_ = spec;
    n_ = n;
    other_->setTokenCount(n);
    refresh();
}

void MaskDiffDialog::choosePreset(int index) {
    preset_->setCurrentIndex(index);
}

void MaskDiffDialog::startFromCurrent() {
    const std::optional<ConventionMatch> match = conventionOf(current_);
    if (match && match->k >= 0) {
        const QSignalBlocker block(parameter_);
        parameter_->setValue(match->k);
    }
    if (preset_->currentIndex() == (match ? int(match->pair) + 1 : 0))
        refresh();
    else
        choosePreset(match ? int(match->pair) + 1 : 0);
}

void MaskDiffDialog::refresh() {
    const int index = preset_->currentIndex();
    form_->setRowVisible(other_, index == 0);
    if (index == 0) {
        form_->setRowVisible(parameter_, false);
        note_->clear();
        compare(current_, other_->spec(), tr("current mask: %1").arg(fromStd(current_.describe())),
                fromStd(other_->spec().describe()));
        return;
    }
    const ConventionPair& pair = conventionPairs()[std::size_t(index - 1)];
    const bool alignment = pair.a == MaskConvention::CausalTopLeft;
    form_->setRowVisible(parameter_, !alignment);
    const int k = parameter_->value();
    note_->setText(fromStd(pair.note) + (alignment ? alignmentNote() : QString()));
    compare(conventionMask(pair.a, k), conventionMask(pair.b, k),
            fromStd(conventionLabel(pair.a, k)), fromStd(conventionLabel(pair.b, k)));
}

void MaskDiffDialog::compare(const MaskSpec& a, const MaskSpec& b, const QString& labelA,
                             const QString& labelB) {
    labelA_->setText(mask_palette::swatch(mask_palette::onlyA()) + tr("<b>A</b>: ") + labelA);
    labelB_->setText(mask_palette::swatch(mask_palette::onlyB(), "&#9638;") + tr("<b>B</b>: ") +
                     labelB);
    b_ = b;
    useB_->setEnabled(!(b == current_));
    try {
        diff_ = diffMasks(buildMask(a, n_), buildMask(b, n_));
    } catch (const InputError& e) {
        diff_ = {};
        view_->setDiff(diff_);
        counts_->setText(
            tr("<b>Cannot compare</b>: %1").arg(QString::fromUtf8(e.what()).toHtmlEscaped()));
        return;
    }
    view_->setDiff(diff_);
    const QString verdict =
        diff_.identical()
            ? tr("<b>identical</b> for n = %1").arg(n_)
            : tr("<b>%1 entries differ</b> for n = %2").arg(diff_.differing()).arg(n_);
    counts_->setText(verdict +
                     tr("<br>%1only in A: %2 · %3only in B: %4 · %5both: %6 · neither: %7")
                         .arg(mask_palette::swatch(mask_palette::onlyA()))
                         .arg(diff_.onlyA)
                         .arg(mask_palette::swatch(mask_palette::onlyB(), "&#9638;"))
                         .arg(diff_.onlyB)
                         .arg(mask_palette::swatch(mask_palette::both(palette())))
                         .arg(diff_.both)
                         .arg(diff_.neither));
}

QString MaskDiffDialog::alignmentNote() const {
    // A worked rectangular case: half as many queries as keys.
    const int keys = std::max(n_, 2), queries = std::max(1, keys / 2);
    const MaskDiff d = diffMasks(rectangularCausal(queries, keys, CausalAlignment::TopLeft),
                                 rectangularCausal(queries, keys, CausalAlignment::BottomRight));
    return tr("<br>Example with %1 queries and %2 keys: top-left allows %3 entries, "
              "bottom-right %4 (%5 more).")
        .arg(queries)
        .arg(keys)
        .arg(d.allowedByA())
        .arg(d.allowedByB())
        .arg(d.allowedByB() - d.allowedByA());
}

} // namespace attnlab::ui
