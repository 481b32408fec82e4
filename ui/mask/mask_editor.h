// SPDX-License-Identifier: GPL-3.0-or-later
// Editing one layer's attention mask: a kind with its parameters, cells painted by click/drag,
// and/or/not combinations, the rows left with no key, a block view at a tile size and a mask diff
// against the conventions popular libraries use, and masks imported from / exported to .npy files.
// Sends the edited MaskSpec; computes nothing.
#pragma once

#include "core/spec/mask.h"

#include <QWidget>

class QLabel;

namespace attnlab::ui {

class MaskBlockView;
class MaskCombinePanel;
class MaskDiffDialog;
class MaskKindForm;
class MaskPaintView;

class MaskEditor : public QWidget {
    Q_OBJECT
public:
    explicit MaskEditor(QWidget* parent = nullptr);
    /// Shows `mask` for n tokens (nothing to do when it shows them already: a token edit).
    /// Does not emit maskEdited.
    void setMask(const MaskSpec& mask, int n);
    MaskSpec mask() const;
    /// Reads the .npy mask at `path` (core/formats/npy.h: true or 1 lets the query attend to the
    /// key, or an additive 0/-inf float mask) and makes it the mask, a `file` mask, sent as an
    /// edit. On failure shows the message, keeps the mask and returns false.
    bool importMask(const QString& path);
    /// Writes the mask's cells to `path` as a bool .npy; on failure shows the message and returns
    /// false.
    bool exportMask(const QString& path);

signals:
    /// The user changed the mask (kind, parameter, painted cell, combination).
    void maskEdited(const MaskSpec& mask);

private slots:
    void onKindEdited(const MaskSpec& spec);
    void onCellsPainted(const BoolMatrix& cells);
    void onAnd(const MaskSpec& operand);
    void onOr(const MaskSpec& operand);
    void onNot();
    void openDiff();
    void chooseImport();
    void chooseExport();

private:
    /// Shows `spec` when it applies to n tokens (else the message, keeping the last good mask);
    /// returns whether it did.
    bool showSpec(const MaskSpec& spec);
    /// showSpec(), then tells the world; returns whether the spec applied.
    bool edit(const MaskSpec& spec);
    void showError(const QString& message);
    void showWarning(const std::vector<int>& rows);

    MaskKindForm* form_;
    QLabel* description_;
    QLabel* error_;
    MaskPaintView* paint_;
    QLabel* warning_;
    MaskBlockView* blocks_;
    MaskCombinePanel* combine_;
    MaskDiffDialog* diff_ = nullptr;
    MaskSpec spec_;
    int n_ = 8;
    bool showsSpec_ = false; // the editor shows spec_ for n_ tokens, with no error
};

} // namespace attnlab::ui
