// SPDX-License-Identifier: GPL-3.0-or-later
// Model editing widgets wired to the document.
#include "ui/editors/model_editor.h"

#include "core/backend/registry.h"
#include "core/explore/editable_values.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/enum_combo.h"
#include "ui/editors/matrix_dialog.h"
#include "ui/editors/narrow_inputs.h"
#include "ui/mask/mask_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

namespace attnlab::ui {

namespace {

const char* const kWeightNames[] = {"Wq", "Wk", "Wv", "Wo", "W (relu pre-map)"};
const LayerWeight kWeights[] = {LayerWeight::Wq, LayerWeight::Wk, LayerWeight::Wv, LayerWeight::Wo,
                                LayerWeight::Ffn};
enum class WeightKind { Absent, Identity, Random, Values };

/// The weight matrix `index` of a layer (0..2 always present, 3 = Wo and 4 = ffn optional).
const MatrixSpec* weightOf(const LayerSpec& l, int index) {
    switch (index) {
    case 0:
        return &l.wq;
    case 1:
        return &l.wk;
    case 2:
        return &l.wv;
    case 3:
        return l.wo ? &*l.wo : nullptr;
    default:
        return l.ffn ? &*l.ffn : nullptr;
    }
}

void setWeight(LayerSpec& l, int index, std::optional<MatrixSpec> m) {
    switch (index) {
    case 0:
    case 1:
    case 2:
        (index == 0 ? l.wq : index == 1 ? l.wk : l.wv) = m ? *m : MatrixSpec::identity();
        break;
    case 3:
        l.wo = m;
        break;
    default:
        l.ffn = m;
        break;
    }
}

/// The item of `box` standing for `kind` (to enable or disable it).
QStandardItem* itemOf(QComboBox* box, WeightKind kind) {
    return qobject_cast<QStandardItemModel*>(box->model())->item(box->findData(int(kind)));
}

QSpinBox* spin(int lo, int hi, const QString& special = QString()) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    if (!special.isEmpty()) s->setSpecialValueText(special);
    s->setKeyboardTracking(false);
    return s;
}

} // namespace

ModelEditor::ModelEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), precision_(new QComboBox), backend_(new QComboBox),
      positional_(new QComboBox), offset_(spin(-1000000, 1000000)), ropeBase_(new QLineEdit),
      alibiCausal_(new QCheckBox("causal")), layerCount_(spin(1, 256)), layer_(new QComboBox),
      heads_(spin(1, 256)), residual_(new QCheckBox("residual X + f(X)")), mixer_(new QComboBox),
      scale_(nullptr), tile_(spin(0, 1 << 20, "off")), decay_(nullptr),
      bidirectional_(new QCheckBox("bidirectional")), chunk_(spin(0, 1 << 20, "off")),
      global_(new QFormLayout), mask_(new MaskEditor) {
    precision_->setObjectName("precision");
    positional_->setObjectName("positional");
    mixer_->setObjectName("mixer");
    heads_->setObjectName("heads");
    layerCount_->setObjectName("layerCount");
    offset_->setObjectName("positionOffset");
    for (const auto p : {Precision::Float32, Precision::Float64, Precision::Exact})
        addEnumItem(precision_, QString::fromUtf8(precisionName(p)), p);
    backend_->setObjectName("backend");
    // Every choice, with what this build and machine have behind it; one not compiled in is
    // listed but disabled. What actually ran each layer is shown above the views.
    for (const auto choice :
         {BackendChoice::Auto, BackendChoice::Cpu, BackendChoice::OpenCl, BackendChoice::Cuda}) {
        const std::string name = backendChoiceName(choice);
        const Backend* backend = findBackend(name);
        QString label = QString::fromStdString(name);
        if (choice != BackendChoice::Auto && !backend)
            label += " (not built)";
        else if (backend && backend->devices().empty())
            label += " (no device)";
        addEnumItem(backend_, label, choice);
        if (backend)
            backend_->setItemData(backend_->count() - 1, QString::fromStdString(backend->status()),
                                  Qt::ToolTipRole);
        if (choice != BackendChoice::Auto && !backend)
            qobject_cast<QStandardItemModel*>(backend_->model())
                ->item(backend_->count() - 1)
                ->setEnabled(false);
    }
    using PKind = PositionalSpec::Kind;
    for (const auto& [name, kind] :
         {std::pair{"none", PKind::None}, std::pair{"polynomial", PKind::Polynomial},
          std::pair{"sinusoidal", PKind::Sinusoidal}, std::pair{"learned", PKind::Learned},
          std::pair{"rope", PKind::Rope}, std::pair{"alibi", PKind::Alibi}})
        addEnumItem(positional_, name, kind);
    using MKind = MixerSpec::Kind;
    for (const auto& [name, kind] :
         {std::pair{"softmax", MKind::Softmax}, std::pair{"softmax_like", MKind::SoftmaxLike},
          std::pair{"raw", MKind::Raw}, std::pair{"ssm", MKind::Ssm}})
        addEnumItem(mixer_, name, kind);
    ropeBase_->setPlaceholderText(QString::number(kDefaultRopeBase));
    scale_ = rationalField("scale", true, [](LayerSpec& l, const QString& t) {
        l.mixer.scale = t.isEmpty() ? std::nullopt : std::optional(parseRational(t.toStdString()));
    });
    scale_->setPlaceholderText("default");
    decay_ = rationalField("decay a", false, [](LayerSpec& l, const QString& t) {
        l.mixer.a = parseRational(t.toStdString());
    });

    scale_->setObjectName("mixerScale");
    // Each row where it fits, else its field under its label: the editors' panel is 300 px wide
    // at 1280 x 720 and 430 px at 1600. Rows a choice does not use are hidden (refresh).
    global_->setRowWrapPolicy(QFormLayout::WrapLongRows);
    global_->addRow("Precision", precision_);
    global_->addRow("Backend", backend_);
    global_->addRow("Positions", positional_);
    global_->addRow("Offset", offset_);
    global_->addRow("RoPE base", ropeBase_);
    global_->addRow("ALiBi", alibiCausal_);
    auto* layers = new QHBoxLayout;
    layers->addWidget(layerCount_);
    layers->addWidget(new QLabel("editing"));
    layers->addWidget(layer_, 1);
    global_->addRow("Layers", layers);

    auto* layerBox = new QGroupBox("Layer");
    layerForm_ = new QFormLayout(layerBox);
    layerForm_->setRowWrapPolicy(QFormLayout::WrapLongRows);
    auto* headRow = new QHBoxLayout;
    headRow->addWidget(heads_);
    headRow->addWidget(residual_, 1);
    layerForm_->addRow("Heads", headRow);
    layerForm_->addRow("Mixer", mixer_);
    layerForm_->addRow("Scale", scale_);
    layerForm_->addRow("Tile", tile_);
    layerForm_->addRow("Decay a", decay_); // ssm only, as the two rows below
    layerForm_->addRow("Chunk", chunk_);
    layerForm_->addRow("", bidirectional_);
    for (int i = 0; i < 4; ++i)
        layerForm_->addRow(kWeightNames[i], weightRow(i));
    // Its name in short: the fields fit beside the labels in a narrow panel.
    auto* ffnLabel = new QLabel("W (relu)");
    ffnLabel->setToolTip(kWeightNames[4]);
    layerForm_->addRow(ffnLabel, weightRow(4));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(global_);
    layout->addWidget(layerBox);
    layout->addStretch();

    connect(precision_, &QComboBox::activated, this, [this](int i) {
        const auto precision = enumAt<Precision>(precision_, i);
        editScenario("set precision " + precision_->itemText(i),
                     [precision](Scenario& s) { s.precision = precision; });
    });
    connect(backend_, &QComboBox::activated, this, [this](int i) {
        const BackendChoice choice(enumAt<BackendKind>(backend_, i));
        editScenario("compute on " + QString::fromStdString(backendChoiceName(choice)),
                     [choice](Scenario& s) { s.backend = choice; });
    });
    connect(positional_, &QComboBox::activated, this, [this](int i) {
        const auto kind = enumAt<PositionalSpec::Kind>(positional_, i);
        editScenario("positions: " + positional_->itemText(i), [kind](Scenario& s) {
            PositionalSpec p;
            p.kind = kind;
            p.offset = s.model.positional.offset;
            s.model.positional = p;
        });
    });
    connect(offset_, &QSpinBox::valueChanged, this, [this](int v) {
        editScenario(
            "position offset", [v](Scenario& s) { s.model.positional.offset = v; },
            "position offset");
    });
    connect(ropeBase_, &QLineEdit::editingFinished, this, [this] {
        bool ok = false;
        const double base = ropeBase_->text().toDouble(&ok);
        if (!ropeBase_->text().isEmpty() && (!ok || !isValidRopeBase(base))) {
            emit document_->refused("RoPE base: '" + ropeBase_->text() +
                                    "' is not a number above 1 — the previous value is kept");
            refresh();
            return;
        }
        editScenario("RoPE base",
                     [&](Scenario& s) { s.model.positional.base = ok ? base : kDefaultRopeBase; });
    });
    connect(alibiCausal_, &QCheckBox::toggled, this, [this](bool on) {
        editScenario("ALiBi causal", [on](Scenario& s) { s.model.positional.causal = on; });
    });
    connect(layerCount_, &QSpinBox::valueChanged, this, [this](int count) {
        editScenario(
            QString("%1 layers").arg(count),
            [count](Scenario& s) {
                s.model.layers.resize(std::size_t(count), s.model.layers.back());
            },
            "layer count");
    });
    connect(layer_, &QComboBox::currentIndexChanged, this, &ModelEditor::refresh);
    connect(heads_, &QSpinBox::valueChanged, this, [this](int h) {
        editLayer(
            QString("%1 heads").arg(h), [h](LayerSpec& l) { l.heads = h; }, "heads");
    });
    connect(residual_, &QCheckBox::toggled, this,
            [this](bool on) { editLayer("residual", [on](LayerSpec& l) { l.residual = on; }); });
    connect(mixer_, &QComboBox::activated, this, [this](int i) {
        const auto kind = enumAt<MixerSpec::Kind>(mixer_, i);
        editLayer("mixer " + mixer_->itemText(i), [kind](LayerSpec& l) { l.mixer.kind = kind; });
    });
    connect(tile_, &QSpinBox::valueChanged, this, [this](int t) {
        editLayer(
            "tile", [t](LayerSpec& l) { l.mixer.tile = t; }, "tile");
    });
    connect(bidirectional_, &QCheckBox::toggled, this, [this](bool on) {
        editLayer("bidirectional", [on](LayerSpec& l) { l.mixer.bidirectional = on; });
    });
    connect(chunk_, &QSpinBox::valueChanged, this, [this](int c) {
        editLayer(
            "chunk", [c](LayerSpec& l) { l.mixer.chunk = c; }, "chunk");
    });
    connect(mask_, &MaskEditor::maskEdited, this, [this](const MaskSpec& m) {
        editLayer("mask " + QString::fromStdString(m.describe()),
                  [&](LayerSpec& l) { l.mask = m; });
    });
    connect(document_, &ScenarioDocument::changed, this, &ModelEditor::refresh);
    refresh();
}

QLineEdit* ModelEditor::rationalField(const QString& what, bool optional,
                                      const std::function<void(LayerSpec&, const QString&)>& set) {
    auto* field = new QLineEdit;
    connect(field, &QLineEdit::editingFinished, this, [this, field, what, optional, set] {
        const QString text = field->text().trimmed();
        try {
            if (!(optional && text.isEmpty())) parseRational(text.toStdString());
        } catch (const std::exception& e) {
            emit document_->refused(what + ": " + e.what() + " — the previous value is kept");
            refresh();
            return;
        }
        editLayer(what, [&](LayerSpec& l) { set(l, text); });
    });
    return field;
}

QWidget* ModelEditor::weightRow(int index) {
    // The kind and "Edit…" on one line, a random matrix's seed and scale on a line under them.
    auto* row = new QWidget;
    auto* lines = new QVBoxLayout(row);
    lines->setContentsMargins(0, 0, 0, 0);
    lines->setSpacing(2);
    WeightControls& c = weights_[index];
    c.kind = new QComboBox;
    for (const auto& [name, kind] :
         {std::pair{"absent", WeightKind::Absent}, std::pair{"identity", WeightKind::Identity},
          std::pair{"random", WeightKind::Random}, std::pair{"values", WeightKind::Values}})
        addEnumItem(c.kind, name, kind);
    if (index < 3) itemOf(c.kind, WeightKind::Absent)->setEnabled(false);
    auto* edit = new QToolButton;
    edit->setText("Edit…");
    edit->setToolTip("Edit the numbers of this matrix cell by cell");
    auto* kindLine = new QHBoxLayout;
    kindLine->addWidget(c.kind, 1);
    kindLine->addWidget(edit);
    lines->addLayout(kindLine);
    c.seed = spin(0, 1 << 30);
    c.seed->setPrefix("seed ");
    narrowTo(c.seed, 5);
    c.scale = new QLineEdit;
    c.scale->setPlaceholderText("scale 1");
    c.scale->setMinimumWidth(c.scale->fontMetrics().horizontalAdvance("scale 1") + 16);
    c.random = new QWidget;
    auto* randomLine = new QHBoxLayout(c.random);
    randomLine->setContentsMargins(0, 0, 0, 0);
    randomLine->addWidget(c.seed, 1);
    randomLine->addWidget(c.scale, 1);
    lines->addWidget(c.random);
    connect(edit, &QToolButton::clicked, this, [this, index] { editWeight(index); });
    const QString name = kWeightNames[index];
    // Rebuilds the matrix from the controls: random takes seed and scale, values stay as given.
    auto apply = [this, index, name](const QString& field) {
        const WeightControls& w = weights_[index];
        const auto kind = enumAt<WeightKind>(w.kind, w.kind->currentIndex());
        Rational scale = 1;
        try {
            if (!w.scale->text().trimmed().isEmpty())
                scale = parseRational(w.scale->text().trimmed().toStdString());
        } catch (const std::exception& e) {
            emit document_->refused(name + " scale: " + e.what() + " — the previous value is kept");
            refresh();
            return;
        }
        editLayer(
            name + " weights",
            [&](LayerSpec& l) {
                const MatrixSpec* current = weightOf(l, index);
                if (kind == WeightKind::Absent)
                    setWeight(l, index, std::nullopt);
                else if (kind == WeightKind::Identity)
                    setWeight(l, index, MatrixSpec::identity());
                else if (kind == WeightKind::Random)
                    setWeight(l, index, MatrixSpec::random(std::uint64_t(w.seed->value()), scale));
                else if (current && current->kind == MatrixSpec::Kind::Values)
                    setWeight(l, index, *current);
            },
            field);
    };
    connect(c.kind, &QComboBox::activated, this, [apply] { apply(QString()); });
    connect(c.seed, &QSpinBox::valueChanged, this, [apply, name] { apply(name + " seed"); });
    connect(c.scale, &QLineEdit::editingFinished, this, [apply] { apply(QString()); });
    return row;
}

MatrixDialog* ModelEditor::editWeight(int index) {
    const Scenario& s = document_->scenario();
    const std::size_t layer = std::size_t(currentLayer());
    std::optional<Matrix<Rational>> values;
    try {
        // The numbers the model computes with now, as exact values (floats by their decimals).
        values = weightValues(s, layer, kWeights[index]);
    } catch (const std::exception& e) {
        emit document_->refused(e.what());
        return nullptr;
    }
    if (!values) {
        emit document_->refused(QString(kWeightNames[index]) +
                                " is absent: choose identity or random first");
        return nullptr;
    }
    auto* dialog = new MatrixDialog(QString("Layer %1: %2").arg(layer).arg(kWeightNames[index]),
                                    *values, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, index] {
        const Matrix<Rational> edited = dialog->values();
        editLayer(QString("%1 values").arg(kWeightNames[index]),
                  [&](LayerSpec& l) { setWeight(l, index, MatrixSpec::given(edited)); });
    });
    dialog->open();
    return dialog;
}

int ModelEditor::currentLayer() const {
    return std::max(0, layer_->currentIndex());
}

void ModelEditor::setCurrentLayer(int layer) {
    layer_->setCurrentIndex(layer);
}

void ModelEditor::editScenario(const QString& what, const std::function<void(Scenario&)>& change,
                               const QString& field) {
    Scenario next = document_->scenario();
    change(next);
    if (!document_->editScenario(std::move(next), what, field)) refresh();
}

void ModelEditor::editLayer(const QString& what, const std::function<void(LayerSpec&)>& change,
                            const QString& field) {
    const std::size_t index = std::size_t(currentLayer());
    editScenario(
        QString("layer %1: %2").arg(index).arg(what),
        [&](Scenario& s) {
            if (index < s.model.layers.size()) change(s.model.layers[index]);
        },
        field.isEmpty() ? QString() : QString("layer %1: %2").arg(index).arg(field));
}

void ModelEditor::refresh() {
    const Scenario& s = document_->scenario();
    const QList<QWidget*> controls = findChildren<QWidget*>();
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QWidget* w : controls)
        if (w != mask_ && !mask_->isAncestorOf(w))
            blockers.push_back(std::make_unique<QSignalBlocker>(w));

    selectEnum(precision_, s.precision);
    selectEnum(backend_, s.backend.kind);
    const PositionalSpec& p = s.model.positional;
    selectEnum(positional_, p.kind);
    offset_->setValue(int(p.offset));
    ropeBase_->setText(p.base == kDefaultRopeBase ? QString() : QString::number(p.base, 'g', 17));
    global_->setRowVisible(ropeBase_, p.kind == PositionalSpec::Kind::Rope);
    alibiCausal_->setChecked(p.causal);
    global_->setRowVisible(alibiCausal_, p.kind == PositionalSpec::Kind::Alibi);

    const int layers = int(s.model.layers.size());
    layerCount_->setValue(layers);
    const int current = std::min(currentLayer(), layers - 1);
    if (layer_->count() != layers) {
        layer_->clear();
        for (int i = 0; i < layers; ++i)
            layer_->addItem(QString("layer %1").arg(i));
    }
    layer_->setCurrentIndex(current);
    const LayerSpec& l = s.model.layers[std::size_t(current)];
    heads_->setValue(l.heads);
    residual_->setChecked(l.residual);
    selectEnum(mixer_, l.mixer.kind);
    scale_->setText(l.mixer.scale ? QString::fromStdString(rationalText(*l.mixer.scale))
                                  : QString());
    tile_->setValue(l.mixer.tile);
    const bool ssm = l.mixer.kind == MixerSpec::Kind::Ssm;
    decay_->setText(QString::fromStdString(rationalText(l.mixer.a)));
    for (QWidget* w : std::initializer_list<QWidget*>{decay_, bidirectional_, chunk_})
        layerForm_->setRowVisible(w, ssm);
    layerForm_->setRowVisible(scale_, !ssm);
    bidirectional_->setChecked(l.mixer.bidirectional);
    chunk_->setValue(l.mixer.chunk);
    for (int i = 0; i < 5; ++i) {
        const MatrixSpec* m = weightOf(l, i);
        WeightControls& c = weights_[i];
        const WeightKind kind = !m                                      ? WeightKind::Absent
                                : m->kind == MatrixSpec::Kind::Identity ? WeightKind::Identity
                                : m->kind == MatrixSpec::Kind::Random   ? WeightKind::Random
                                                                        : WeightKind::Values;
        selectEnum(c.kind, kind);
        itemOf(c.kind, WeightKind::Values)->setEnabled(kind == WeightKind::Values);
        c.random->setVisible(kind == WeightKind::Random);
        if (kind == WeightKind::Random) {
            c.seed->setValue(int(m->seed));
            c.scale->setText(m->scale == 1 ? QString()
                                           : QString::fromStdString(rationalText(m->scale)));
        }
        if (kind == WeightKind::Values && m->kind == MatrixSpec::Kind::Tensor) {
            const auto [rows, cols] = m->tensor.shape();
            c.kind->setToolTip(QString("%1 × %2 from the checkpoint's %3")
                                   .arg(rows)
                                   .arg(cols)
                                   .arg(QString::fromStdString(m->tensor.name)));
        } else if (kind == WeightKind::Values) {
            c.kind->setToolTip(
                QString("%1 × %2 given values").arg(m->values.rows()).arg(m->values.cols()));
        }
    }
    blockers.clear();
    mask_->setMask(l.mask, s.n());
    if (current != announcedLayer_) { // chosen here, or moved by a scenario of fewer layers
        announcedLayer_ = current;
        emit layerSelected(current);
    }
}

} // namespace attnlab::ui
