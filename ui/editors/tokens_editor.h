// SPDX-License-Identifier: GPL-3.0-or-later
// The token matrix editor: a table to type in (or paste a spreadsheet block into), rows and
// columns to add or remove, generators (random with seed, one-hot, arange) and import of .csv and
// .npy files. For an imported model, a text box (when the checkpoint has a tokenizer) and a line
// of token ids above a table of ids and token strings. Every change goes to the document as one
// undoable edit.
#pragma once

#include "core/spec/matrix_spec.h"

#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QSpinBox;
class QComboBox;
class QTableView;

namespace attnlab::ui {

class ScenarioDocument;
class TokenIdsModel;
class TokenTableModel;

class TokensEditor : public QWidget {
    Q_OBJECT
public:
    explicit TokensEditor(ScenarioDocument* document, QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    TokenTableModel* model() const { return model_; }
    /// Pastes a tab-, comma- or space-separated block at the current cell, growing the matrix.
    void pasteText(const QString& text);
    /// Imports tokens from a .csv or .npy file.
    void importFile(const QString& path);
    /// Applies the generator chosen in the controls.
    void generate();
    /// Replaces the tokens by `text` tokenised by the checkpoint's tokenizer.
    void applyText(const QString& text);
    /// Replaces the tokens by these ids of the checkpoint's vocabulary (comma- or space-separated).
    void applyIds(const QString& ids);
    /// The text box shows `text` while the tokens are `ids` (a model opened on a sentence).
    void rememberSentence(const QString& text, const std::vector<long long>& ids);
    QLineEdit* textBox() const { return text_; }
    QLineEdit* idsBox() const { return ids_; }
    TokenIdsModel* idsModel() const { return idsModel_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();
    void resize(int rows, int cols, const QString& what);
    void setValues(const Matrix<Rational>& values, const QString& what);
    /// Makes `tokens` (of the checkpoint) the scenario's, as the edit `what`.
    void setTokens(TokenSpec tokens, const QString& what);

    ScenarioDocument* document_;
    TokenTableModel* model_;
    TokenIdsModel* idsModel_;
    QWidget* checkpointBar_;
    QLineEdit* text_;
    QLineEdit* ids_;
    QWidget* valueControls_; // shape and generators: for tokens given as values
    QString sentence_;       // what text_ shows while the tokens are sentenceIds_
    std::vector<long long> sentenceIds_;
    QTableView* table_;
    QLabel* source_;
    QComboBox* generator_;
    QSpinBox* rows_;
    QSpinBox* cols_;
    QSpinBox* seed_;
};

} // namespace attnlab::ui
