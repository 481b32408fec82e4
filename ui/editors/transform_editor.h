// SPDX-License-Identifier: GPL-3.0-or-later
// The transformation applied to the input: a permutation σ (drag rows to reorder, swap two,
// reverse, random with seed, or typed in cycle notation), a shift of every position by c, or a
// perturbation of one token entry, or a decode step of the last m tokens against a KV cache of
// the others (m, the causal alignment, optionally an m x n mask imported from a .npy). A
// permutation that is not a bijection, or a mask file of the wrong shape, is refused with the
// reason.
#pragma once

#include <QWidget>

class QComboBox;
class QLineEdit;
class QListWidget;
class QSpinBox;
class QStackedWidget;
class QLabel;
namespace attnlab {
struct PermutationSpec;
} // namespace attnlab

namespace attnlab::ui {

class ScenarioDocument;
struct ExplorerState;

class TransformEditor : public QWidget {
    Q_OBJECT
public:
    explicit TransformEditor(ScenarioDocument* document, QWidget* parent = nullptr);

    QListWidget* orderList() const { return order_; }
    QLineEdit* cyclesField() const { return cycles_; }
    /// Sets σ from cycle notation ("(0 2)(1 3)"); refused (with a message) when not a bijection.
    void applyCycles(const QString& text);
    /// Swaps the images of positions i and j.
    void swap(int i, int j);
    /// Uses the m x n mask in the .npy at `path` for the decode step (empty: the aligned rows of
    /// each layer's mask); refused, with the message, when it does not fit.
    void setDecodeMaskFile(const QString& path);

private:
    void refresh();
    void setPermutation(const PermutationSpec& spec, const QString& what);
    /// Sends `next` to the document as the edit `what` of `field` (ScenarioDocument::edit).
    void edit(const ExplorerState& next, const QString& what, const QString& field = QString());

    ScenarioDocument* document_;
    QComboBox* kind_;
    QStackedWidget* pages_;
    QListWidget* order_;
    QLineEdit* cycles_;
    QSpinBox* swapA_;
    QSpinBox* swapB_;
    QSpinBox* seed_;
    QSpinBox* shift_;
    QSpinBox* token_;
    QSpinBox* feature_;
    QLineEdit* delta_;
    QSpinBox* queries_;
    QComboBox* alignment_;
    QLabel* maskFile_;
    QLabel* summary_;
};

} // namespace attnlab::ui
