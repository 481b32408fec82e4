// SPDX-License-Identifier: GPL-3.0-or-later
// Token editing widgets wired to the document.
#include "ui/editors/tokens_editor.h"

#include "core/base/error.h"
#include "core/explore/editable_values.h"
#include "core/formats/npy.h"
#include "core/formats/table_text.h"
#include "core/io/hf_import.h"
#include "ui/document/scenario_document.h"
#include "ui/editors/enum_combo.h"
#include "ui/editors/narrow_inputs.h"
#include "ui/editors/token_ids_model.h"
#include "ui/editors/token_table_model.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <fstream>
#include <sstream>

namespace attnlab::ui {

namespace {

QString describe(const TokenSpec& t) {
    switch (t.kind) {
    case TokenSpec::Kind::Random:
        return QString("random, seed %1 — editing a cell turns it into values").arg(t.seed);
    case TokenSpec::Kind::OneHot:
        return "one-hot — editing a cell turns it into values";
    case TokenSpec::Kind::Arange:
        return "arange — editing a cell turns it into values";
    case TokenSpec::Kind::Ids:
        return "ids of the checkpoint's vocabulary, looked up in its embedding";
    case TokenSpec::Kind::Values:
        break;
    }
    return "values";
}

QToolButton* toolButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    return b;
}

} // namespace

TokensEditor::TokensEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), model_(new TokenTableModel(this)),
      idsModel_(new TokenIdsModel(this)), checkpointBar_(new QWidget(this)),
      text_(new QLineEdit(this)), ids_(new QLineEdit(this)), valueControls_(new QWidget(this)),
      table_(new QTableView(this)), source_(new QLabel(this)), generator_(new QComboBox(this)),
      rows_(new QSpinBox(this)), cols_(new QSpinBox(this)), seed_(new QSpinBox(this)) {
    table_->setModel(model_);
    // Columns fit the rows in view only: by default Qt measures up to 1000 rows, every cell of a
    // 256 x 32 table on each edit (30 ms of the GUI thread).
    table_->horizontalHeader()->setResizeContentsPrecision(0);
    table_->horizontalHeader()->setDefaultSectionSize(64);
    table_->verticalHeader()->setDefaultSectionSize(22);
    table_->installEventFilter(this);
    source_->setWordWrap(true);
    source_->setStyleSheet("color: palette(mid);");

    auto* addRow = toolButton("+ row", "Append a row of zeros", this);
    auto* removeRow = toolButton("− row", "Remove the last row", this);
    auto* addCol = toolButton("+ col", "Append a column of zeros", this);
    auto* removeCol = toolButton("− col", "Remove the last column", this);
    auto* import = toolButton("Import…", "Read tokens from a .csv or .npy file", this);

    for (const auto& [name, kind] : {std::pair{"random", TokenSpec::Kind::Random},
                                     std::pair{"one-hot", TokenSpec::Kind::OneHot},
                                     std::pair{"arange", TokenSpec::Kind::Arange}})
        addEnumItem(generator_, name, kind);
    rows_->setRange(1, 1 << 16);
    cols_->setRange(1, 4096);
    seed_->setRange(0, 1 << 30);
    rows_->setPrefix("n = ");
    cols_->setPrefix("d = ");
    seed_->setPrefix("seed ");
    narrowTo(rows_, 4);
    narrowTo(cols_, 3);
    narrowTo(seed_, 5);
    auto* generateButton =
        toolButton("Generate", "Replace the tokens by the generator's n x d matrix", this);

    text_->setObjectName("tokenText");
    text_->setPlaceholderText("Type a sentence and press Enter");
    text_->setClearButtonEnabled(true);
    ids_->setObjectName("tokenIds");
    ids_->setPlaceholderText("token ids, e.g. 464, 2068, 7586 — Enter applies");
    auto* bar = new QFormLayout(checkpointBar_);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addRow("Text", text_);
    bar->addRow("Ids", ids_);

    // Three short rows rather than two long ones, so that the controls fit the editors' panel of
    // a 1280 px screen (280 px) without scrolling sideways: the shape, the generator and its size,
    // then its seed, Generate and, at the end, the other way in (Import).
    auto* values = new QVBoxLayout(valueControls_);
    values->setContentsMargins(0, 0, 0, 0);
    const auto line = [](std::initializer_list<QWidget*> widgets) {
        auto* l = new QHBoxLayout;
        for (QWidget* w : widgets)
            l->addWidget(w);
        l->addStretch();
        return l;
    };
    values->addLayout(line({addRow, removeRow, addCol, removeCol}));
    values->addLayout(line({generator_, rows_, cols_}));
    QHBoxLayout* last = line({seed_, generateButton});
    last->addWidget(import); // at the right end, after the stretch
    values->addLayout(last);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(checkpointBar_);
    layout->addWidget(table_, 1);
    layout->addWidget(source_);
    layout->addWidget(valueControls_);

    connect(model_, &TokenTableModel::edited, this, &TokensEditor::setValues);
    connect(model_, &TokenTableModel::refused, document_, &ScenarioDocument::refused);
    connect(addRow, &QToolButton::clicked, this,
            [this] { resize(model_->rowCount() + 1, model_->columnCount(), "add a token"); });
    connect(removeRow, &QToolButton::clicked, this,
            [this] { resize(model_->rowCount() - 1, model_->columnCount(), "remove a token"); });
    connect(addCol, &QToolButton::clicked, this,
            [this] { resize(model_->rowCount(), model_->columnCount() + 1, "add a feature"); });
    connect(removeCol, &QToolButton::clicked, this,
            [this] { resize(model_->rowCount(), model_->columnCount() - 1, "remove a feature"); });
    connect(import, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Import tokens", QString(),
                                                          "Tables (*.csv *.txt *.npy)");
        if (!path.isEmpty()) importFile(path);
    });
    connect(generateButton, &QToolButton::clicked, this, &TokensEditor::generate);
    connect(generator_, &QComboBox::currentIndexChanged, this, [this](int i) {
        const auto kind = enumAt<TokenSpec::Kind>(generator_, i);
        cols_->setEnabled(kind != TokenSpec::Kind::OneHot);
        seed_->setEnabled(kind == TokenSpec::Kind::Random);
    });
    connect(text_, &QLineEdit::returnPressed, this, [this] { applyText(text_->text()); });
    connect(ids_, &QLineEdit::returnPressed, this, [this] { applyIds(ids_->text()); });
    connect(document_, &ScenarioDocument::changed, this, &TokensEditor::refresh);
    refresh();
}

void TokensEditor::refresh() {
    const Scenario& s = document_->scenario();
    const auto& checkpoint = s.model.checkpoint;
    const bool ids = s.tokens.kind == TokenSpec::Kind::Ids;
    checkpointBar_->setVisible(checkpoint.has_value());
    const bool hasTokenizer = checkpoint && checkpoint->tokenizer;
    text_->setVisible(hasTokenizer);
    if (auto* form = static_cast<QFormLayout*>(checkpointBar_->layout()))
        form->labelForField(text_)->setVisible(hasTokenizer);
    std::vector<int> changedColumns;
    if (ids) {
        idsModel_->setTokens(s.tokens);
        QStringList list;
        for (long long id : s.tokens.ids)
            list << QString::number(id);
        ids_->setText(list.join(", "));
        text_->setText(s.tokens.ids == sentenceIds_ ? sentence_ : QString());
    } else {
        changedColumns = model_->setValues(tokenValues(s)); // an embedding's are not shown
        ids_->clear();
        text_->clear();
    }
    QAbstractItemModel* shown = ids ? static_cast<QAbstractItemModel*>(idsModel_) : model_;
    // Whole values, never "0....": every column of a table just shown, else the columns that
    // changed (fitting all 32 columns of 256 tokens took most of an edit's 5 ms here).
    if (ids || table_->model() != shown) {
        table_->setModel(shown);
        table_->resizeColumnsToContents();
    } else {
        for (int c : changedColumns)
            table_->resizeColumnToContents(c);
    }
    valueControls_->setVisible(!ids);
    source_->setText(
        QString("%1 tokens × %2 features: %3").arg(s.n()).arg(s.d()).arg(describe(s.tokens)));
    rows_->setValue(s.n());
    cols_->setValue(s.d());
}

void TokensEditor::rememberSentence(const QString& text, const std::vector<long long>& ids) {
    sentence_ = text;
    sentenceIds_ = ids;
}

void TokensEditor::setTokens(TokenSpec tokens, const QString& what) {
    Scenario next = document_->scenario();
    next.tokens = std::move(tokens);
    next.permutation = next.permutation.resizedTo(next.n());
    document_->editScenario(std::move(next), what);
}

void TokensEditor::applyText(const QString& text) {
    const auto& checkpoint = document_->scenario().model.checkpoint;
    if (!checkpoint) return;
    try {
        TokenSpec tokens = checkpointText(*checkpoint, text.toStdString());
        rememberSentence(text, tokens.ids);
        setTokens(std::move(tokens), QString("tokenise “%1”").arg(text));
    } catch (const std::exception& e) {
        emit document_->refused(QString("text: %1 — nothing was changed").arg(e.what()));
    }
}

void TokensEditor::applyIds(const QString& text) {
    const auto& checkpoint = document_->scenario().model.checkpoint;
    if (!checkpoint) return;
    try {
        std::vector<long long> ids;
        for (const QString& item : text.split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) {
            bool ok = false;
            ids.push_back(item.toLongLong(&ok));
            if (!ok) throw InputError("“" + item.toStdString() + "” is not a token id");
        }
        if (ids.empty()) throw InputError("no token ids were given");
        setTokens(checkpointTokens(*checkpoint, std::move(ids)), "set token ids");
    } catch (const std::exception& e) {
        emit document_->refused(QString("ids: %1 — nothing was changed").arg(e.what()));
    }
}

void TokensEditor::setValues(const Matrix<Rational>& values, const QString& what) {
    Scenario next = document_->scenario();
    next.tokens = TokenSpec::given(values);
    next.permutation = next.permutation.resizedTo(int(values.rows()));
    document_->editScenario(std::move(next), what);
}

void TokensEditor::resize(int rows, int cols, const QString& what) {
    if (rows < 1 || cols < 1) {
        emit document_->refused("the tokens need at least one row and one column");
        return;
    }
    setValues(resizedValues(model_->values(), rows, cols), what);
}

void TokensEditor::generate() {
    Scenario next = document_->scenario();
    switch (enumAt<TokenSpec::Kind>(generator_, generator_->currentIndex())) {
    case TokenSpec::Kind::Random:
        next.tokens =
            TokenSpec::random(rows_->value(), cols_->value(), std::uint64_t(seed_->value()));
        break;
    case TokenSpec::Kind::OneHot:
        next.tokens = TokenSpec::oneHot(rows_->value());
        break;
    default:
        next.tokens = TokenSpec::arange(rows_->value(), cols_->value());
        break;
    }
    next.permutation = next.permutation.resizedTo(next.n());
    document_->editScenario(std::move(next), "generate " + generator_->currentText() + " tokens");
}

void TokensEditor::pasteText(const QString& text) {
    try {
        const Matrix<Rational> block = parseTable(text.toStdString());
        const QModelIndex at = table_->currentIndex();
        const int r0 = at.isValid() ? at.row() : 0, c0 = at.isValid() ? at.column() : 0;
        setValues(pastedValues(model_->values(), block, r0, c0),
                  QString("paste %1 × %2 tokens").arg(block.rows()).arg(block.cols()));
    } catch (const std::exception& e) {
        emit document_->refused(QString("paste: %1 — nothing was changed").arg(e.what()));
    }
}

void TokensEditor::importFile(const QString& path) {
    try {
        Matrix<Rational> values;
        if (path.endsWith(".npy", Qt::CaseInsensitive)) {
            std::ifstream in(path.toStdString(), std::ios::binary);
            if (!in) throw InputError(path.toStdString() + ": cannot be read");
            std::ostringstream bytes;
            bytes << in.rdbuf();
            values = decimalValues(parseNpy(bytes.str()));
        } else {
            values = loadTableFile(path.toStdString());
        }
        setValues(values, "import tokens from " + QFileInfo(path).fileName());
    } catch (const std::exception& e) {
        emit document_->refused(QString("import: %1 — nothing was changed").arg(e.what()));
    }
}

bool TokensEditor::eventFilter(QObject* watched, QEvent* event) {
    if (watched == table_ && table_->model() == model_ && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->matches(QKeySequence::Paste)) {
        pasteText(QApplication::clipboard()->text());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace attnlab::ui
