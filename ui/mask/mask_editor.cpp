// SPDX-License-Identifier: GPL-3.0-or-later
// The mask editor: a form, a paint view, a block view and the combination and diff tools,
// composed; every edit becomes a MaskSpec that core validates and evaluates.
#include "ui/mask/mask_editor.h"

#include "core/base/error.h"
#include "core/formats/npy.h"
#include "ui/mask/mask_block_view.h"
#include "ui/mask/mask_combine_panel.h"
#include "ui/mask/mask_diff_dialog.h"
#include "ui/mask/mask_kind_form.h"
#include "ui/mask/mask_paint_view.h"
#include "ui/mask/mask_palette.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace attnlab::ui {

namespace {
// At most this many row numbers are listed in the warning.
constexpr std::size_t kListedRows = 12;
const char* const kNpyFilter =
    QT_TRANSLATE_NOOP("MaskEditor", "NumPy arrays (*.npy);;All files (*)");

std::filesystem::path absolutePath(const QString& path) {
    return std::filesystem::absolute(std::filesystem::path(path.toStdString())).lexically_normal();
}

QFont bold(QFont font) {
    font.setBold(true);
    return font;
}

QLabel* heading(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setFont(bold(label->font()));
    return label;
}

/// A heading that shows or hides `body`, hidden at first; its arrow says which.
QToolButton* collapsibleHeading(const QString& text, QWidget* body, QWidget* parent) {
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setFont(bold(button->font()));
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setAutoRaise(true);
    button->setCheckable(true);
    button->setArrowType(Qt::RightArrow);
    body->hide();
    QObject::connect(button, &QToolButton::toggled, body, [button, body](bool open) {
        button->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        body->setVisible(open);
    });
    return button;
}
} // namespace

MaskEditor::MaskEditor(QWidget* parent)
    : QWidget(parent), form_(new MaskKindForm(this)), description_(new QLabel(this)),
      error_(new QLabel(this)), paint_(new MaskPaintView(this)), warning_(new QLabel(this)),
      blocks_(new MaskBlockView(this)), combine_(new MaskCombinePanel(this)) {
    form_->setObjectName("maskForm");
    description_->setObjectName("description");
    description_->setWordWrap(true);
    for (QLabel* label : {description_, error_, warning_})
        label->setTextFormat(Qt::PlainText);
    description_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setObjectName("error");
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: %1").arg(mask_palette::warning().name()));
    error_->hide();
    warning_->setObjectName("allMaskedWarning");
    warning_->setWordWrap(true);
    warning_->setStyleSheet(QStringLiteral("color: %1").arg(mask_palette::warning().name()));
    warning_->hide();
    auto* compare = new QPushButton(tr("Compare with…"), this);
    compare->setObjectName("compare");
    compare->setToolTip(tr("Mask diff: this mask against another, or two library conventions"));
    auto* importButton = new QPushButton(tr("Import…"), this);
    importButton->setObjectName("importMask");
    importButton->setToolTip(tr("A mask from a .npy file: bool or 0/1 (1: the query may attend "
                                "to the key), or an additive float mask of 0 and -inf"));
    auto* exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setObjectName("exportMask");
    exportButton->setToolTip(tr("The mask's cells to a .npy file of bools"));
    // The diff and the files on one line.
    auto* tools = new QHBoxLayout;
    for (QPushButton* button : {compare, importButton, exportButton})
        tools->addWidget(button);
    auto* tilesHeading = collapsibleHeading(tr("Tiles"), blocks_, this);
    tilesHeading->setObjectName("tilesHeading");
    auto* combineHeading = collapsibleHeading(tr("Combine with a second mask"), combine_, this);
    combineHeading->setObjectName("combineHeading");

    // One column, as narrow as its widest form: the kind, then the cells as large as the
    // column's width makes them, then the tools, the tiles and the combination, the last two
    // folded: the whole grid of a few tokens shows at 1280 x 720 without scrolling.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(form_);
    layout->addWidget(description_);
    layout->addWidget(error_);
    layout->addWidget(heading(tr("Cells (click or drag to paint)"), this));
    layout->addWidget(paint_);
    layout->addWidget(warning_);
    layout->addLayout(tools);
    layout->addWidget(tilesHeading);
    layout->addWidget(blocks_);
    layout->addWidget(combineHeading);
    layout->addWidget(combine_);
    layout->addStretch();

    connect(form_, &MaskKindForm::specEdited, this, &MaskEditor::onKindEdited);
    connect(paint_, &MaskPaintView::cellsPainted, this, &MaskEditor::onCellsPainted);
    connect(combine_, &MaskCombinePanel::andRequested, this, &MaskEditor::onAnd);
    connect(combine_, &MaskCombinePanel::orRequested, this, &MaskEditor::onOr);
    connect(combine_, &MaskCombinePanel::notRequested, this, &MaskEditor::onNot);
    connect(compare, &QPushButton::clicked, this, &MaskEditor::openDiff);
    connect(importButton, &QPushButton::clicked, this, &MaskEditor::chooseImport);
    connect(exportButton, &QPushButton::clicked, this, &MaskEditor::chooseExport);
    setMask(MaskSpec::all(), n_);
}

void MaskEditor::setMask(const MaskSpec& mask, int n) {
    if (showsSpec_ && mask == spec_ && std::max(n, 0) == n_) return;
    showsSpec_ = true;
    n_ = std::max(n, 0);
    form_->setTokenCount(n_);
    combine_->setTokenCount(n_);
    if (showSpec(mask)) return;
    // Not applicable to n tokens: keep it (mask() returns it) over a blank grid.
    spec_ = mask;
    form_->setSpec(mask);
    description_->setText(tr("mask: %1").arg(QString::fromStdString(mask.describe())));
    const BoolMatrix blank = BoolMatrix::Constant(n_, n_, false);
    paint_->setMask(blank);
    paint_->setMarkedRows({});
    blocks_->setMask(blank);
    showWarning({});
}

MaskSpec MaskEditor::mask() const {
    return spec_;
}

bool MaskEditor::showSpec(const MaskSpec& spec) {
    BoolMatrix cells;
    try {
        cells = buildMask(spec, n_);
    } catch (const InputError& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
    error_->hide();
    spec_ = spec;
    form_->setSpec(spec);
    description_->setText(tr("mask: %1").arg(QString::fromStdString(spec.describe())));
    const std::vector<int> rows = allMaskedRows(cells);
    paint_->setMask(cells);
    paint_->setMarkedRows(rows);
    showWarning(rows);
    blocks_->setMask(cells);
    if (diff_) diff_->setCurrent(spec_, n_);
    return true;
}

bool MaskEditor::edit(const MaskSpec& spec) {
    if (!showSpec(spec)) return false;
    emit maskEdited(spec_);
    return true;
}

void MaskEditor::showError(const QString& message) {
    showsSpec_ = false; // the form may hold what failed: the next setMask shows spec_ again
    error_->setText(message);
    error_->show();
}

void MaskEditor::showWarning(const std::vector<int>& rows) {
    warning_->setVisible(!rows.empty());
    if (rows.empty()) return;
    QStringList listed;
    for (std::size_t i = 0; i < rows.size() && i < kListedRows; ++i)
        listed << QString::number(rows[i]);
    QString which = listed.join(", ");
    if (rows.size() > kListedRows) which += tr(" and %1 more").arg(rows.size() - kListedRows);
    warning_->setText(rows.size() == 1
                          ? tr("⚠ row %1 has no allowed key: its output is 0").arg(which)
                          : tr("⚠ rows %1 have no allowed key: their output is 0").arg(which));
}

void MaskEditor::onKindEdited(const MaskSpec& spec) {
    edit(spec);
}
void MaskEditor::onCellsPainted(const BoolMatrix& cells) {
    edit(MaskSpec::custom(cells));
}
void MaskEditor::onAnd(const MaskSpec& operand) {
    edit(MaskSpec::both({spec_, operand}));
}
void MaskEditor::onOr(const MaskSpec& operand) {
    edit(MaskSpec::either({spec_, operand}));
}
void MaskEditor::onNot() {
    edit(MaskSpec::negation(spec_));
}

void MaskEditor::openDiff() {
    if (!diff_) {
        diff_ = new MaskDiffDialog(this);
        connect(diff_, &MaskDiffDialog::useMask, this, &MaskEditor::edit);
    }
    diff_->setCurrent(spec_, n_);
    diff_->startFromCurrent();
    diff_->show();
    diff_->raise();
}

bool MaskEditor::importMask(const QString& path) {
    try {
        const std::filesystem::path file = absolutePath(path);
        return edit(MaskSpec::fromFile(readNpyMask(file), file.string()));
    } catch (const InputError& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
}

bool MaskEditor::exportMask(const QString& path) {
    try {
        writeNpyMask(absolutePath(path), buildMask(spec_, n_));
        return true;
    } catch (const InputError& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
}

void MaskEditor::chooseImport() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import mask"), QString(), tr(kNpyFilter));
    if (!path.isEmpty()) importMask(path);
}

void MaskEditor::chooseExport() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export mask"),
                                                      QStringLiteral("mask.npy"), tr(kNpyFilter));
    if (!path.isEmpty()) exportMask(path);
}

} // namespace attnlab::ui
