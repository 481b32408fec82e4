// The token matrix editor: a table to type in (or paste a spreadsheet block into), rows and
// columns to add or remove, generators (random with seed, one-hot, arange) and import of .csv and
// .npy files. Every change goes to the document as one undoable edit.
#pragma once

#include "core/base/scalar.h"

#include <QWidget>

class QLabel;
class QSpinBox;
class QComboBox;
class QTableView;

namespace attnlab::ui {

class ScenarioDocument;
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

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();
    void resize(int rows, int cols, const QString& what);
    void setValues(const Matrix<Rational>& values, const QString& what);

    ScenarioDocument* document_;
    TokenTableModel* model_;
    QTableView* table_;
    QLabel* source_;
    QComboBox* generator_;
    QSpinBox* rows_;
    QSpinBox* cols_;
    QSpinBox* seed_;
};

} // namespace attnlab::ui
