// SPDX-License-Identifier: GPL-3.0-or-later
// The Positions page: a positional term and scores against the key-minus-query offset.
#include "ui/views/positional_page.h"

#include "core/explore/positional_term.h"
#include "ui/views/heatmap_view.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <qcustomplot.h>

namespace attnlab::ui {

PositionalPage::PositionalPage(QWidget* parent)
    : QWidget(parent), term_(new HeatmapView("positional term", HeatmapView::Scale::Diverging)),
      curves_(new QCustomPlot), row_(new QSpinBox), allRows_(new QCheckBox("every row, faintly")),
      explanation_(new QLabel) {
    explanation_->setWordWrap(true);
    row_->setPrefix("query s = ");
    allRows_->setChecked(true);
    curves_->xAxis->setLabel("offset t − s (key − query)");
    curves_->yAxis->setLabel("score S[s][t], original input");
    curves_->plotLayout()->insertRow(0);
    curves_->plotLayout()->addElement(0, 0,
                                      new QCPTextElement(curves_, "scores against the offset",
                                                         QFont(font().family(), 11, QFont::Bold)));
    term_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    curves_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);

    auto* controls = new QHBoxLayout;
    controls->addWidget(row_);
    controls->addWidget(allRows_);
    controls->addStretch(1);
    auto* caption = new QLabel("A score is a content term plus, under a relative method, a "
                               "function of t − s: give every token the same values and all "
                               "rows fall on one curve; an absolute method's rows do not.");
    caption->setWordWrap(true);
    auto* layout = new QGridLayout(this);
    layout->addWidget(explanation_, 0, 0, 1, 2);
    layout->addWidget(term_, 1, 0);
    layout->addWidget(curves_, 1, 1);
    layout->addLayout(controls, 2, 1);
    layout->addWidget(caption, 3, 1);
    layout->setRowStretch(1, 1);
    layout->setColumnStretch(0, 1);
    layout->setColumnStretch(1, 1);

    connect(row_, &QSpinBox::valueChanged, this, &PositionalPage::drawCurves);
    connect(allRows_, &QCheckBox::toggled, this, &PositionalPage::drawCurves);
}

void PositionalPage::show(const attnlab::SideBySide* sides, std::size_t layer, int head,
                          const attnlab::ViewMatrix& scores) {
    if (!sides || layer >= sides->headWidths.size()) {
        term_->setMatrix({});
        scores_ = {};
        drawCurves();
        return;
    }
    const attnlab::PositionalTerm t = attnlab::positionalTerm(
        sides->positional, int(sides->original.output.values.rows()), sides->tokenWidth, head,
        sides->headCount(layer), sides->headWidths[layer]);
    term_->setTitle(QString::fromStdString(t.title));
    term_->setMatrix(t.matrix, "nothing to draw");
    term_->setAxisLabels({}, {});
    term_->setAxisTitles(QString::fromStdString(t.columnAxis), QString::fromStdString(t.rowAxis));
    term_->setColourLabel(
        sides->positional.kind == attnlab::PositionalSpec::Kind::Alibi  ? "bias added to the score"
        : sides->positional.kind == attnlab::PositionalSpec::Kind::Rope ? "cos of the angle"
                                                                        : "added to the token");
    explanation_->setText(QString::fromStdString(t.explanation));
    scores_ = scores;
    mask_ = layer < sides->masks.size() ? sides->masks[layer] : attnlab::BoolMatrix();
    if (mask_.rows() == t.matrix.values.rows() && mask_.cols() == t.matrix.values.cols())
        term_->setMaskOverlay(mask_); // a bias on keys the mask hides never counts
    const int rows = int(scores_.values.rows());
    if (row_->maximum() != std::max(0, rows - 1)) { // new tokens: the last query reads the most
        const QSignalBlocker block(row_);
        row_->setRange(0, std::max(0, rows - 1));
        row_->setValue(row_->maximum());
    }
    drawCurves();
}

void PositionalPage::drawCurves() {
    curves_->clearGraphs();
    const auto plotRow = [this](int row, const QPen& pen, bool markers) {
        const attnlab::OffsetCurve c = attnlab::scoresByOffset(scores_, mask_, row);
        QCPGraph* g = curves_->addGraph();
        g->setData(QVector<double>(c.offsets.begin(), c.offsets.end()),
                   QVector<double>(c.scores.begin(), c.scores.end()), true);
        g->setPen(pen);
        if (markers) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    };
    const int rows = int(scores_.values.rows());
    if (allRows_->isChecked()) // at most about 64 faint rows, evenly spread
        for (int r = 0; r < rows; r += std::max(1, rows / 64))
            if (r != row_->value()) plotRow(r, QPen(QColor(170, 170, 170), 1), false);
    if (rows > 0) plotRow(row_->value(), QPen(QColor(33, 102, 172), 2.5), true);
    curves_->rescaleAxes();
    curves_->replot();
}

} // namespace attnlab::ui
