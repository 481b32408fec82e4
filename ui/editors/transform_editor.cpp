// SPDX-License-Identifier: GPL-3.0-or-later
// Transformation editing widgets wired to the document.
#include "ui/editors/transform_editor.h"

#include "ui/document/scenario_document.h"
#include "ui/editors/enum_combo.h"
#include "ui/editors/narrow_inputs.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace attnlab::ui {

TransformEditor::TransformEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), kind_(new QComboBox), pages_(new QStackedWidget),
      order_(new QListWidget), cycles_(new QLineEdit), swapA_(new QSpinBox), swapB_(new QSpinBox),
      seed_(new QSpinBox), shift_(new QSpinBox), token_(new QSpinBox), feature_(new QSpinBox),
      delta_(new QLineEdit), queries_(new QSpinBox), alignment_(new QComboBox),
      maskFile_(new QLabel), summary_(new QLabel) {
    kind_->setObjectName("transformKind");
    shift_->setObjectName("shift");
    // In the order of the pages below.
    for (const auto& [name, kind] : {std::pair{"permutation σ", Transform::Kind::Permutation},
                                     std::pair{"shift positions by c", Transform::Kind::Shift},
                                     std::pair{"perturb one entry", Transform::Kind::Perturbation},
                                     std::pair{"decode with a KV cache", Transform::Kind::Decode}})
        addEnumItem(kind_, QString::fromUtf8(name), kind);
    summary_->setWordWrap(true);

    auto* perm = new QWidget;
    auto* pv = new QVBoxLayout(perm);
    pv->setContentsMargins(0, 0, 0, 0);
    order_->setDragDropMode(QAbstractItemView::InternalMove);
    order_->setToolTip("Row i of P X is token σ(i): drag rows to reorder");
    order_->setMaximumHeight(150);
    pv->addWidget(order_);
    cycles_->setPlaceholderText("cycle notation, e.g. (0 1)(2 3)");
    pv->addWidget(cycles_);
    auto* swapRow = new QHBoxLayout;
    auto* swapButton = new QPushButton("Swap");
    swapRow->addWidget(swapButton);
    swapRow->addWidget(swapA_);
    swapRow->addWidget(swapB_);
    pv->addLayout(swapRow);
    // Two rows, so that the page fits the editors' panel of a 1280 px screen.
    auto* quick = new QHBoxLayout;
    auto* identity = new QPushButton("Identity");
    auto* reverse = new QPushButton("Reverse");
    quick->addWidget(identity);
    quick->addWidget(reverse);
    pv->addLayout(quick);
    auto* randomRow = new QHBoxLayout;
    auto* random = new QPushButton("Random");
    seed_->setRange(0, 1 << 30);
    seed_->setPrefix("seed ");
    narrowTo(seed_, 5);
    randomRow->addWidget(random);
    randomRow->addWidget(seed_);
    pv->addLayout(randomRow);

    auto* shiftPage = new QWidget;
    auto* sf = new QFormLayout(shiftPage);
    shift_->setRange(-100000, 100000);
    shift_->setKeyboardTracking(false);
    sf->addRow("c", shift_);

    auto* perturbPage = new QWidget;
    auto* pf = new QFormLayout(perturbPage);
    token_->setKeyboardTracking(false);
    feature_->setKeyboardTracking(false);
    pf->addRow("token t", token_);
    pf->addRow("feature j", feature_);
    pf->addRow("δ", delta_);

    auto* decodePage = new QWidget;
    auto* df = new QFormLayout(decodePage);
    queries_->setObjectName("decodeQueries");
    queries_->setKeyboardTracking(false);
    queries_->setToolTip("Decode the last m tokens; the first n − m are the KV cache (prefilled)");
    alignment_->setObjectName("decodeAlignment");
    addEnumItem(alignment_, "bottom-right (flash-attn, KV cache)", CausalAlignment::BottomRight);
    addEnumItem(alignment_, "top-left (PyTorch is_causal, tril)", CausalAlignment::TopLeft);
    narrowTo(alignment_, 14);
    alignment_->setToolTip("Which rows of each layer's n x n mask the m queries use: the last m "
                           "(bottom-right) or the first m (top-left)");
    // The file's name on a line of its own (wrapped, however long), its buttons under it.
    auto* maskButtons = new QHBoxLayout;
    auto* importMask = new QPushButton("Import…");
    auto* clearMask = new QPushButton("Clear");
    importMask->setToolTip("An m x n .npy mask for every layer, instead of the aligned rows");
    maskFile_->setObjectName("decodeMaskFile");
    maskFile_->setWordWrap(true);
    maskButtons->addWidget(importMask);
    maskButtons->addWidget(clearMask);
    maskButtons->addStretch();
    df->addRow("queries m", queries_);
    df->addRow("alignment", alignment_);
    df->addRow("mask", maskFile_);
    df->addRow("", maskButtons);

    pages_->addWidget(perm);
    pages_->addWidget(shiftPage);
    pages_->addWidget(perturbPage);
    pages_->addWidget(decodePage);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(kind_);
    layout->addWidget(pages_);
    layout->addWidget(summary_);
    layout->addStretch();

    connect(kind_, &QComboBox::activated, this, [this](int i) {
        ExplorerState next = document_->state();
        next.transform.kind = enumAt<Transform::Kind>(kind_, i);
        edit(next, "transformation: " + kind_->itemText(i));
    });
    connect(order_->model(), &QAbstractItemModel::rowsMoved, this, [this] {
        PermutationSpec spec;
        spec.kind = PermutationSpec::Kind::Images;
        for (int i = 0; i < order_->count(); ++i)
            spec.images.push_back(order_->item(i)->data(Qt::UserRole).toInt());
        setPermutation(spec, "reorder σ");
    });
    connect(cycles_, &QLineEdit::returnPressed, this, [this] { applyCycles(cycles_->text()); });
    connect(swapButton, &QPushButton::clicked, this,
            [this] { swap(swapA_->value(), swapB_->value()); });
    connect(identity, &QPushButton::clicked, this, [this] { setPermutation({}, "σ = identity"); });
    connect(reverse, &QPushButton::clicked, this, [this] {
        PermutationSpec spec;
        spec.kind = PermutationSpec::Kind::Reverse;
        setPermutation(spec, "σ = reverse");
    });
    connect(random, &QPushButton::clicked, this, [this] {
        PermutationSpec spec;
        spec.kind = PermutationSpec::Kind::Random;
        spec.seed = std::uint64_t(seed_->value());
        setPermutation(spec, QString("σ = random (seed %1)").arg(seed_->value()));
    });
    connect(shift_, &QSpinBox::valueChanged, this, [this](int c) {
        ExplorerState next = document_->state();
        next.transform.shift = c;
        edit(next, QString("shift by %1").arg(c), "shift");
    });
    auto perturb = [this](const QString& field) {
        ExplorerState next = document_->state();
        next.transform.token = token_->value();
        next.transform.feature = feature_->value();
        try {
            next.transform.delta = parseRational(delta_->text().trimmed().toStdString());
        } catch (const std::exception& e) {
            emit document_->refused(QString("δ: ") + e.what() + " — the previous value is kept");
            refresh();
            return;
        }
        edit(next, "perturbation " + QString::fromStdString(next.transform.describe()), field);
    };
    connect(token_, &QSpinBox::valueChanged, this, [perturb] { perturb("perturbed token"); });
    connect(feature_, &QSpinBox::valueChanged, this, [perturb] { perturb("perturbed feature"); });
    connect(delta_, &QLineEdit::editingFinished, this, [perturb] { perturb(QString()); });
    connect(queries_, &QSpinBox::valueChanged, this, [this](int m) {
        ExplorerState next = document_->state();
        next.transform.queries = m;
        edit(next, QString("decode %1 queries").arg(m), "decode queries");
    });
    connect(alignment_, &QComboBox::activated, this, [this](int i) {
        ExplorerState next = document_->state();
        next.transform.alignment = enumAt<CausalAlignment>(alignment_, i);
        edit(next,
             "decode alignment " + QString::fromStdString(alignmentName(next.transform.alignment)));
    });
    connect(importMask, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Import an m x n decode mask",
                                                          QString(), "NumPy arrays (*.npy)");
        if (!path.isEmpty()) setDecodeMaskFile(path);
    });
    connect(clearMask, &QPushButton::clicked, this, [this] { setDecodeMaskFile(QString()); });
    connect(document_, &ScenarioDocument::changed, this, &TransformEditor::refresh);
    refresh();
}

void TransformEditor::edit(const ExplorerState& next, const QString& what, const QString& field) {
    if (!document_->edit(next, what, field)) refresh();
}

void TransformEditor::setDecodeMaskFile(const QString& path) {
    ExplorerState next = document_->state();
    next.transform.kind = Transform::Kind::Decode;
    next.transform.maskFile = path.toStdString();
    edit(next, path.isEmpty() ? QString("decode mask: aligned rows")
                              : "decode mask " + QFileInfo(path).fileName());
}

void TransformEditor::setPermutation(const PermutationSpec& spec, const QString& what) {
    ExplorerState next = document_->state();
    next.scenario.permutation = spec;
    next.transform.kind = Transform::Kind::Permutation;
    edit(next, what);
}

void TransformEditor::applyCycles(const QString& text) {
    PermutationSpec spec;
    spec.kind = PermutationSpec::Kind::Cycles;
    spec.cycles = text.trimmed().toStdString();
    setPermutation(spec, "σ = " + text.trimmed());
}

void TransformEditor::swap(int i, int j) {
    const Scenario& s = document_->scenario();
    if (i == j || i < 0 || j < 0 || i >= s.n() || j >= s.n()) return;
    PermutationSpec spec;
    spec.kind = PermutationSpec::Kind::Images;
    spec.images = s.permutation.resolve(s.n()).images();
    std::swap(spec.images[std::size_t(i)], spec.images[std::size_t(j)]);
    setPermutation(spec, QString("swap σ(%1) and σ(%2)").arg(i).arg(j));
}

void TransformEditor::refresh() {
    const Scenario& s = document_->scenario();
    const Transform& t = document_->transform();
    const QList<QWidget*> controls = findChildren<QWidget*>();
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QWidget* w : controls)
        blockers.push_back(std::make_unique<QSignalBlocker>(w));
    // The list's model is not blocked: its view must hear of the new rows to redraw them (clearing
    // and adding rows emits no rowsMoved, so no reorder is sent back).

    selectEnum(kind_, t.kind);
    pages_->setCurrentIndex(kind_->currentIndex());
    const Permutation sigma = s.permutation.resolve(s.n());
    order_->clear();
    for (int i = 0; i < sigma.size(); ++i) {
        auto* item = new QListWidgetItem(QString("row %1 ← token %2").arg(i).arg(sigma(i)));
        item->setData(Qt::UserRole, sigma(i));
        order_->addItem(item);
    }
    cycles_->setText(QString::fromStdString(sigma.cycles()));
    for (QSpinBox* b : {swapA_, swapB_, token_})
        b->setRange(0, std::max(0, s.n() - 1));
    swapB_->setValue(std::min(1, s.n() - 1));
    feature_->setRange(0, std::max(0, s.d() - 1));
    shift_->setValue(int(t.shift));
    token_->setValue(t.token);
    feature_->setValue(t.feature);
    delta_->setText(QString::fromStdString(rationalText(t.delta)));
    queries_->setRange(1, std::max(1, s.n()));
    queries_->setValue(t.queries);
    selectEnum(alignment_, t.alignment);
    alignment_->setEnabled(t.maskFile.empty());
    maskFile_->setText(t.maskFile.empty()
                           ? QString("aligned rows")
                           : QFileInfo(QString::fromStdString(t.maskFile)).fileName());
    summary_->setText(t.kind == Transform::Kind::Permutation
                          ? QString("σ = %1").arg(QString::fromStdString(sigma.cycles()))
                          : QString::fromStdString(t.describe(s.n())));
}

} // namespace attnlab::ui
