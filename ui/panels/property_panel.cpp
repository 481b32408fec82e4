// SPDX-License-Identifier: GPL-3.0-or-later
// Verdict list and details.
#include "ui/panels/property_panel.h"

#include "core/checks/check_registry.h"
#include "ui/document/compute_service.h"
#include "ui/help/doc_links.h"
#include "ui/panels/check_parameters_form.h"
#include "ui/panels/verdict_text.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <array>

using attnlab::PropertyReport;
using attnlab::Verdict;

namespace attnlab::ui {

namespace {

/// For the table: a fraction too long to read becomes "≈ decimal" (the details keep every digit).
QString shortValueText(const attnlab::ReportNumber& v) {
    const QString full = valueText(v);
    if (full.size() <= 14 || !v.isExact()) return full;
    return "≈ " + QString::number(v.toDouble(), 'g', 4);
}

/// The table's headers, whole and short (when the whole ones do not fit beside the names: at
/// 1280 px in presentation mode); their tooltips say what they are.
constexpr std::array<const char*, 4> kHeaders = {"property", "verdict", "deviation", "tolerance"};
constexpr std::array<const char*, 4> kShortHeaders = {"property", "verdict", "dev.", "tol."};

/// The table's shorter form: "– n/a" (the details and the tooltip say why).
QString verdictCell(Verdict v) {
    return v == Verdict::NotApplicable ? QString("– n/a") : verdictLabel(v);
}

// The property's declared parameters (`--property NAME:key=value`), as in check --help, with
// their types.
QString parametersToolTip(const QString& name) {
    const attnlab::PropertyCheck* check = attnlab::findPropertyCheck(name.toStdString());
    if (!check) return {};
    QString tip = "parameters: " + QString::fromStdString(attnlab::parametersHelp(*check));
    for (const attnlab::CheckParameter& p : check->parameters())
        tip += QString("\n%1: %2")
                   .arg(QString::fromStdString(p.name), attnlab::parameterTypeName(p.type));
    return tip;
}

} // namespace

PropertyPanel::PropertyPanel(QWidget* parent)
    : QWidget(parent), tree_(new QTreeWidget), parameters_(new CheckParametersForm),
      details_(new QTextBrowser), shrink_(new QCheckBox("show the smallest (shrunk) witness")),
      progress_(new QProgressBar), cancel_(new QPushButton("Cancel")),
      runAll_(new QPushButton("Run all")), status_(new QLabel) {
    tree_->setColumnCount(ColumnCount);
    tree_->setHeaderLabels({kHeaders.begin(), kHeaders.end()});
    tree_->headerItem()->setToolTip(Deviation, "the largest deviation the check found");
    tree_->headerItem()->setToolTip(Tolerance,
                                    "the largest deviation it counts as rounding (0 when exact)");
    // The name takes the room the values leave; headers wider than their values elide.
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(Name, QHeaderView::Stretch);
    tree_->header()->setTextElideMode(Qt::ElideRight);
    tree_->header()->setMinimumSectionSize(36);
    tree_->setRootIsDecorated(false);
    tree_->setAlternatingRowColors(true);
    // Columns fit their contents once per update (fitColumns): ResizeToContents measured every
    // row's text again for each cell an update sets (six per property when the checks start).
    tree_->setUniformRowHeights(true); // one line per property: no per-row height on each verdict
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    details_->setOpenLinks(false);
    connect(details_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.toString() == kShowJsonLink) {
            showJson_ = !showJson_;
            showSelected();
        } else if (url.toString() == kCopyJsonLink) {
            if (const PropertyReport* r = selectedReport())
                QGuiApplication::clipboard()->setText(
                    QString::fromStdString(attnlab::reportJson(*r).dump(2)));
        } else {
            emit helpRequested(docTarget(url));
        }
    });
    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(progress_, 1);
    // Cancel last: where it was clicked, a disabled Cancel stays after the run ends, not the Run
    // all that appears (a second click there would start every check again).
    progressRow->addWidget(runAll_);
    progressRow->addWidget(cancel_);
    runAll_->setToolTip("Run every property: those large inputs do not run on every edit, and "
                        "those a cancel stopped");
    runAll_->hide();
    status_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(tree_, 3);
    layout->addWidget(parameters_);
    layout->addLayout(progressRow);
    layout->addWidget(status_);
    layout->addWidget(shrink_);
    layout->addWidget(details_, 2);
    connect(tree_, &QTreeWidget::itemSelectionChanged, this, &PropertyPanel::showSelected);
    connect(shrink_, &QCheckBox::toggled, this, &PropertyPanel::showSelected);
    connect(cancel_, &QPushButton::clicked, this, &PropertyPanel::cancelRequested);
    connect(runAll_, &QPushButton::clicked, this, &PropertyPanel::runAllRequested);
    finish(false);
}

void PropertyPanel::start(const QStringList& names, const QStringList& deferred) {
    const QString selected = propertyOf(tree_->currentItem());
    reports_.assign(std::size_t(names.size()), std::nullopt);
    // Keep rows (and the selection) when the same properties are recomputed: no flicker per edit.
    if (tree_->topLevelItemCount() != names.size()) tree_->clear();
    for (int i = 0; i < names.size(); ++i) {
        QTreeWidgetItem* item = tree_->topLevelItem(i);
        if (!item) item = new QTreeWidgetItem(tree_);
        item->setText(Name, displayName(names[i]));
        item->setData(Name, Qt::UserRole, names[i]);
        item->setToolTip(Name, parametersToolTip(names[i]));
        item->setForeground(VerdictCol, palette().color(QPalette::PlaceholderText));
        item->setText(VerdictCol, deferred.contains(names[i]) ? "not run" : kComputing);
        item->setToolTip(VerdictCol, QString());
        for (int c = Deviation; c < ColumnCount; ++c)
            item->setText(c, QString());
    }
    progress_->setRange(0, int(names.size() - deferred.size()));
    progress_->setValue(0);
    progress_->setFormat("%v / %m");
    progress_->setVisible(true);
    cancel_->setEnabled(true);
    runAll_->setVisible(!deferred.isEmpty());
    status_->setText(deferred.isEmpty()
                         ? QString()
                         : QString("%1 properties sweep every token and are not run on each edit "
                                   "at this size: press Run all.")
                               .arg(deferred.size()));
    if (!selected.isEmpty()) select(selected);
    showSelected(); // the selected row's new state, not the previous run's report
    fitColumns(Fit::Widen);
}

void PropertyPanel::setReport(int index, const PropertyReport& r) {
    QTreeWidgetItem* item = tree_->topLevelItem(index);
    if (!item) return;
    reports_[std::size_t(index)] = r;
    item->setText(VerdictCol, verdictCell(r.verdict));
    item->setForeground(VerdictCol, verdictColour(r.verdict));
    const bool applicable = r.verdict != Verdict::NotApplicable;
    item->setText(Deviation, applicable ? shortValueText(r.maxDeviation) : QString());
    item->setText(Tolerance, applicable ? shortValueText(r.tolerance) : QString());
    item->setToolTip(Deviation, valueText(r.maxDeviation));
    item->setToolTip(Tolerance,
                     QString::fromStdString(r.toleranceRule) + (r.exact ? " (exact)" : " (float)"));
    item->setToolTip(Name, QString::fromStdString(r.explanation));
    item->setToolTip(VerdictCol, QString::fromStdString(r.explanation));
    advanceProgress();
    fitColumns(Fit::Widen, index);
    if (item->isSelected()) showSelected();
}

void PropertyPanel::setFailed(int index, const QString& message) {
    QTreeWidgetItem* item = tree_->topLevelItem(index);
    if (!item) return;
    item->setText(VerdictCol, "error");
    item->setToolTip(VerdictCol, message);
    item->setForeground(VerdictCol, verdictColour(Verdict::Fails));
    advanceProgress();
    fitColumns(Fit::Widen, index);
    status_->setText(item->text(Name) + ": " + message);
    if (item->isSelected()) showSelected();
}

void PropertyPanel::setRunning(int index) {
    if (const QTreeWidgetItem* item = tree_->topLevelItem(index))
        progress_->setFormat("%v / %m: " + item->text(Name));
}

void PropertyPanel::restart(int index) {
    QTreeWidgetItem* item = tree_->topLevelItem(index);
    if (!item) return;
    reports_[std::size_t(index)].reset();
    item->setForeground(VerdictCol, palette().color(QPalette::PlaceholderText));
    item->setText(VerdictCol, kComputing);
    for (int c = Deviation; c < ColumnCount; ++c)
        item->setText(c, QString());
    // Beside a pass still running it is one more step of the bar; alone, the bar's only one.
    if (progress_->isVisible()) {
        progress_->setMaximum(progress_->maximum() + 1);
    } else {
        progress_->setRange(0, 1);
        progress_->setValue(0);
        progress_->setVisible(true);
    }
    cancel_->setEnabled(true);
    if (item->isSelected()) showSelected();
}

void PropertyPanel::setProgress(int done, int total, const QString& text) {
    progress_->setRange(0, std::max(total, 1));
    progress_->setValue(std::min(done, total));
    progress_->setFormat(text);
    progress_->setVisible(true);
}

void PropertyPanel::stopRun(const QString& verdict, const QString& why) {
    for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = tree_->topLevelItem(i);
        reports_[std::size_t(i)].reset();
        item->setText(VerdictCol, verdict);
        item->setToolTip(VerdictCol, why);
        item->setForeground(VerdictCol, palette().color(QPalette::PlaceholderText));
        for (int c = Deviation; c < ColumnCount; ++c)
            item->setText(c, QString());
    }
    finish(false);
    status_->setText(why);
    showSelected();
}

QString PropertyPanel::selectFirstFailure() {
    if (tree_->currentItem()) return {};
    for (const auto& r : reports_)
        if (r && r->verdict == Verdict::Fails) {
            const QString name = QString::fromStdString(r->name);
            select(name);
            return name;
        }
    return {};
}

void PropertyPanel::markStale() {
    for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
        reports_[std::size_t(i)].reset();
        QTreeWidgetItem* item = tree_->topLevelItem(i);
        item->setText(VerdictCol, kComputing);
        item->setForeground(VerdictCol, palette().color(QPalette::PlaceholderText));
        item->setToolTip(VerdictCol, QString());
        for (int c = Deviation; c < ColumnCount; ++c)
            item->setText(c, QString());
    }
    // Every row now reads the same: the first one measured widens the verdict column to
    // "computing…" (measuring every row's texts on each edit costs the GUI thread).
    if (tree_->topLevelItemCount() > 0) fitColumns(Fit::Widen, 0);
    showSelected();
}

void PropertyPanel::forgetSelection() {
    const QSignalBlocker block(shrink_);
    shrink_->setChecked(false);
    tree_->setCurrentItem(nullptr);
    tree_->clearSelection();
    showSelected();
}

void PropertyPanel::setModelParameters(bool shown) {
    modelParameters_ = shown;
    if (!shown) parameters_->showProperty(QString(), {}, {});
}

void PropertyPanel::showParametersOf(ComputeService* compute) {
    const auto show = [this, compute] {
        if (!modelParameters_) return;
        const QString name = propertyOf(tree_->currentItem());
        nlohmann::json effective = nlohmann::json::object();
        for (const attnlab::CheckSpec& c : compute->checks())
            if (QString::fromStdString(c.name) == name) effective = c.params;
        parameters_->showProperty(name, compute->chosenParameters(name), effective);
    };
    connect(compute, &ComputeService::checksStarted, this, show);
    connect(tree_, &QTreeWidget::currentItemChanged, this, show);
    connect(parameters_, &CheckParametersForm::parametersChanged, compute,
            &ComputeService::setChosenParameters);
}

void PropertyPanel::setPresentation(bool on) {
    QFont font = QApplication::font(this);
    font.setPointSizeF(font.pointSizeF() * (on ? kPresentationScale : 1.0));
    setFont(font); // children without a font of their own follow
    fitColumns();
}

void PropertyPanel::fitColumns(Fit how, int changedRow) {
    // The value columns fit their cells' texts (a few rows: cheaper than resizeColumnToContents),
    // and their headers too: the whole ones when the name still fits beside them, else the
    // short ones. The name column stretches over the rest. A cell draws its text between margins
    // of the focus frame's plus one; 4 more never elide by rounding.
    const QFontMetrics metrics(tree_->font());
    const int margins = 2 * (tree_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 1) + 4;
    const int rows = tree_->topLevelItemCount();
    if (changedRow >= 0 && int(textWidths_.size()) == rows) {
        measureRow(changedRow, metrics, margins);
    } else {
        textWidths_.resize(std::size_t(rows));
        for (int row = 0; row < rows; ++row)
            measureRow(row, metrics, margins);
        const QFontMetrics header(tree_->header()->font());
        for (int c = Name; c < ColumnCount; ++c) {
            const int frame = tree_->header()->sectionSizeHint(c) -
                              header.horizontalAdvance(tree_->headerItem()->text(c));
            headerWidths_[c] = frame + header.horizontalAdvance(kHeaders[std::size_t(c)]);
            shortHeaderWidths_[c] = frame + header.horizontalAdvance(kShortHeaders[std::size_t(c)]);
        }
    }
    std::array<int, ColumnCount> texts{}, withHeader{}; // widest cell; and its header's hint
    int total = 0;
    for (int c = Name; c < ColumnCount; ++c) {
        texts[c] = tree_->header()->minimumSectionSize();
        for (const auto& widths : textWidths_)
            texts[c] = std::max(texts[c], widths[c]);
        withHeader[c] = c == Name ? texts[c] : std::max(texts[c], headerWidths_[c]);
        total += withHeader[c];
    }
    const bool whole = total <= tree_->viewport()->width();
    for (int c = VerdictCol; c < ColumnCount; ++c) {
        const char* label = (whole ? kHeaders : kShortHeaders)[std::size_t(c)];
        if (tree_->headerItem()->text(c) != label) tree_->headerItem()->setText(c, label);
        int width = whole ? withHeader[c] : std::max(texts[c], shortHeaderWidths_[c]);
        if (how == Fit::Widen) width = std::max(width, tree_->columnWidth(c));
        if (width != tree_->columnWidth(c)) tree_->setColumnWidth(c, width);
    }
}

void PropertyPanel::measureRow(int row, const QFontMetrics& metrics, int margins) {
    const QTreeWidgetItem* item = tree_->topLevelItem(row);
    for (int c = Name; c < ColumnCount; ++c)
        textWidths_[std::size_t(row)][c] = metrics.horizontalAdvance(item->text(c)) + margins;
}

void PropertyPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitColumns();
}

void PropertyPanel::advanceProgress() {
    // QProgressBar::setValue repaints at once, which costs the GUI thread a paint per verdict
    // while the checks still run; an update request (queued, merged) is enough.
    progress_->setUpdatesEnabled(false);
    progress_->setValue(progress_->value() + 1);
    progress_->setUpdatesEnabled(true); // schedules the update
}

void PropertyPanel::finish(bool cancelled) {
    progress_->setVisible(false);
    cancel_->setEnabled(false);
    if (cancelled)
        for (int i = 0; i < tree_->topLevelItemCount(); ++i)
            if (!reports_[std::size_t(i)]) tree_->topLevelItem(i)->setText(VerdictCol, "cancelled");
    fitColumns();
    if (cancelled) {
        status_->setText("Checks cancelled; press Run all to run them again.");
        runAll_->setVisible(true); // a cancel leaves the checks re-runnable without an edit
        showSelected();
    }
}

std::vector<PropertyReport> PropertyPanel::reports() const {
    std::vector<PropertyReport> out;
    for (const auto& r : reports_)
        if (r) out.push_back(*r);
    return out;
}

const PropertyReport* PropertyPanel::selectedReport() const {
    const int index = tree_->indexOfTopLevelItem(tree_->currentItem());
    return index >= 0 && reports_[std::size_t(index)] ? &*reports_[std::size_t(index)] : nullptr;
}

const PropertyReport* PropertyPanel::report(const QString& name) const {
    for (const auto& r : reports_)
        if (r && QString::fromStdString(r->name) == name) return &*r;
    return nullptr;
}

QString PropertyPanel::verdictText(const QString& name) const {
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        if (propertyOf(tree_->topLevelItem(i)) == name) {
            const auto& r = reports_[std::size_t(i)];
            return r ? QString(attnlab::verdictName(r->verdict))
                     : tree_->topLevelItem(i)->text(VerdictCol);
        }
    return {};
}

void PropertyPanel::select(const QString& name) {
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        if (propertyOf(tree_->topLevelItem(i)) == name)
            tree_->setCurrentItem(tree_->topLevelItem(i));
}

QString PropertyPanel::propertyOf(const QTreeWidgetItem* row) {
    return row ? row->data(Name, Qt::UserRole).toString() : QString();
}

void PropertyPanel::showSelected() {
    QTreeWidgetItem* item = tree_->currentItem();
    const int index = item ? tree_->indexOfTopLevelItem(item) : -1;
    if (index < 0 || !reports_[std::size_t(index)]) {
        details_->setHtml(item ? unreportedDetailsHtml(item->text(Name), item->text(VerdictCol),
                                                       item->toolTip(VerdictCol))
                               : "<i>Select a property to see why it holds or fails.</i>");
        emit witnessSelected({});
        return;
    }
    const PropertyReport& r = *reports_[std::size_t(index)];
    const bool useShrunk = shrink_->isChecked() && r.shrunkWitness;
    const std::optional<attnlab::Witness>& w = useShrunk ? r.shrunkWitness : r.witness;
    shrink_->setEnabled(r.shrunkWitness.has_value());
    details_->setHtml(reportDetailsHtml(r, useShrunk, showJson_));
    std::vector<attnlab::WitnessCell> cells;
    if (w && w->cell()) cells.push_back(*w->cell());
    emit witnessSelected(cells);
}

} // namespace attnlab::ui
