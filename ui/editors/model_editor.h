// SPDX-License-Identifier: GPL-3.0-or-later
// The model half of the input panel: precision, positional method, the layer stack, and for the
// chosen layer its heads, residual, mixer (kind, scale, tile, decay a, direction, chunk), weights
// (identity, random with seed and scale, or the given values) and mask. Edits go to the document.
#pragma once

#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;
namespace attnlab {
struct Scenario;
struct LayerSpec;
} // namespace attnlab

namespace attnlab::ui {

class MaskEditor;
class ScenarioDocument;

class ModelEditor : public QWidget {
    Q_OBJECT
public:
    explicit ModelEditor(ScenarioDocument* document, QWidget* parent = nullptr);

    int currentLayer() const;
    void setCurrentLayer(int layer);
    /// The mask editor of the selected layer; the window places it (its own tab).
    MaskEditor* maskEditor() const { return mask_; }

    /// Opens the cell editor of weight matrix `index` (0 Wq, 1 Wk, 2 Wv, 3 Wo, 4 W) of the current
    /// layer, showing its current numbers; accepting it makes them the layer's given values.
    class MatrixDialog* editWeight(int index);

signals:
    /// The layer being edited changed: chosen, or moved by a scenario with fewer layers (the
    /// views and the mask tab's title follow it).
    void layerSelected(int layer);

private:
    void refresh();
    /// Applies `change` to a copy of the scenario and sends it as the edit `what` of `field`
    /// (ScenarioDocument::edit: consecutive edits of one field are one undo step).
    void editScenario(const QString& what, const std::function<void(Scenario&)>& change,
                      const QString& field = QString());
    /// The same for the selected layer; the field is that layer's.
    void editLayer(const QString& what, const std::function<void(LayerSpec&)>& change,
                   const QString& field = QString());
    /// A text field holding an exact number; empty means "default" where `optional`.
    QLineEdit* rationalField(const QString& what, bool optional,
                             const std::function<void(LayerSpec&, const QString&)>& set);
    QWidget* weightRow(int index);

    ScenarioDocument* document_;
    QComboBox* precision_;
    QComboBox* backend_;
    QComboBox* positional_;
    QSpinBox* offset_;
    QLineEdit* ropeBase_;
    QCheckBox* alibiCausal_;
    QSpinBox* layerCount_;
    QComboBox* layer_;
    QSpinBox* heads_;
    QCheckBox* residual_;
    QComboBox* mixer_;
    QLineEdit* scale_;
    QSpinBox* tile_;
    QLineEdit* decay_;
    QCheckBox* bidirectional_;
    QSpinBox* chunk_;
    struct WeightControls {
        QComboBox* kind;
        QSpinBox* seed;
        QLineEdit* scale;
        QWidget* random; // the seed and scale, shown for a random matrix
    };
    WeightControls weights_[5];
    QFormLayout* global_;    // precision, positions, layers
    QFormLayout* layerForm_; // the selected layer's
    MaskEditor* mask_;
    int announcedLayer_ = 0; // the layer layerSelected last named
};

} // namespace attnlab::ui
