// SPDX-License-Identifier: GPL-3.0-or-later
// Painting a figure: the title block, then each panel's cells (one drawRect each, so SVG and PDF
// hold vector shapes), masked cells in grey, witness cells outlined, values in small maps, tick
// labels, axis captions and a colour bar with its ends. Sizes are in logical pixels, chosen to be
// read on a projected slide.
#include "ui/views/figure.h"

#include "core/explore/display_pooling.h"
#include "core/formats/short_number.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab::ui {

namespace {

constexpr int kMargin = 28, kGap = 20;
constexpr int kTitlePx = 28, kSubtitlePx = 17, kPanelTitlePx = 18, kTickPx = 15, kCaptionPx = 15;
constexpr int kTitleBlockLine = 24;
// A panel's slot: its title above, row captions and labels left of the cells, the colour bar
// right of them, column labels and caption below.
constexpr int kPanelTitleH = 34, kRowCaptionW = 22, kRowLabelW = 66;
constexpr int kArea = 400, kLargestCell = 88, kEmptySide = 160, kShortestBar = 120;
constexpr int kBarGap = 12, kBarW = 18, kBarLabelW = 70;
constexpr int kColumnLabelH = 72, kColumnCaptionH = 22;
constexpr int kLeftOfCells = kRowCaptionW + kRowLabelW,
              kRightOfCells = kBarGap + kBarW + kBarLabelW;
constexpr int kAboveCells = kPanelTitleH, kBelowCells = kColumnLabelH + kColumnCaptionH;
constexpr int kNarrowest = 900; // room for the title block
constexpr int kBarBands = 48;
const QColor kWitness(230, 0, 60); // the outline of witness cells in the window
const QColor kInk(34, 34, 34), kQuiet(96, 96, 96), kMasked(208, 208, 208), kFrame(150, 150, 150);

int panelRows(const Figure& f) {
    return int((f.panels.size() + std::size_t(f.columns) - 1) / std::size_t(f.columns));
}

int titleBlockHeight(const Figure& f) {
    return kTitlePx + 14 + int(f.subtitle.size()) * kTitleBlockLine + 14;
}

/// The side of a cell when `rows` x `cols` cells are drawn: they fill kArea, up to kLargestCell.
double cellSide(Eigen::Index rows, Eigen::Index cols) {
    return std::min(
        {double(kArea) / double(rows), double(kArea) / double(cols), double(kLargestCell)});
}

/// The size of a panel's cells together.
QSizeF gridSize(const FigurePanel& panel) {
    const Eigen::MatrixXd& values = panel.matrix.values;
    if (values.size() == 0) return QSizeF(kEmptySide, kEmptySide);
    const auto [rowBlock, colBlock] =
        displayBlocks(values.rows(), values.cols(), kFigureCellsUpTo, kFigureCellsUpTo);
    const Eigen::Index rows = (values.rows() + rowBlock - 1) / rowBlock,
                       cols = (values.cols() + colBlock - 1) / colBlock;
    const double side = cellSide(rows, cols);
    return QSizeF(double(cols) * side, double(rows) * side);
}

/// Where the panels go: each column as wide as its widest cells, each row as tall as its tallest.
struct Layout {
    std::vector<double> x, y;          // the top left of each column's and row's slots
    std::vector<double> width, height; // the slots' sizes
    QSize size;                        // the whole figure's
};

Layout layoutOf(const Figure& figure) {
    const int columns = std::max(1, figure.columns), rows = panelRows(figure);
    Layout l;
    l.width.assign(std::size_t(columns), kLeftOfCells + kEmptySide + kRightOfCells);
    l.height.assign(std::size_t(rows), kAboveCells + kShortestBar + kBelowCells);
    for (std::size_t i = 0; i < figure.panels.size(); ++i) {
        const QSizeF grid = gridSize(figure.panels[i]);
        double& w = l.width[i % std::size_t(columns)];
        double& h = l.height[i / std::size_t(columns)];
        w = std::max(w, kLeftOfCells + grid.width() + kRightOfCells);
        h = std::max(h, kAboveCells + grid.height() + kBelowCells);
    }
    double x = kMargin, y = kMargin + titleBlockHeight(figure);
    for (double w : l.width) {
        l.x.push_back(x);
        x += w + kGap;
    }
    for (double h : l.height) {
        l.y.push_back(y);
        y += h + kGap;
    }
    l.size = QSize(std::max(kNarrowest, int(std::ceil(x - kGap + kMargin))),
                   int(std::ceil(y - kGap + kMargin)));
    return l;
}

QFont sized(QFont font, int pixels, bool bold = false) {
    font.setPixelSize(std::max(1, pixels));
    font.setBold(bold);
    return font;
}

QColor colourOf(ColourScale scale, const ValueRange& range, double value) {
    const double span = range.hi - range.lo;
    const Rgb rgb = colourAt(scale, span > 0 ? (value - range.lo) / span : 0.5);
    return QColor(rgb[0], rgb[1], rgb[2]);
}

/// Black on light cells, white on dark ones.
QColor textOn(const QColor& cell) {
    return cell.lightnessF() > 0.55 ? kInk : Qt::white;
}

/// The labels of the drawn cells along one axis: token labels when the matrix is drawn cell for
/// cell and has one per cell, else the first token index of each drawn cell.
QStringList tickTexts(const std::vector<std::string>& labels, int cells, int tokensPerCell) {
    QStringList texts;
    const bool named = tokensPerCell == 1 && labels.size() == std::size_t(cells);
    for (int i = 0; i < cells; ++i)
        texts << (named ? QString::fromStdString(labels[std::size_t(i)])
                        : QString::number(i * tokensPerCell));
    return texts;
}

class PanelPainter {
public:
    PanelPainter(QPainter& p, const FigurePanel& panel, QPointF origin, double width)
        : p_(p), panel_(panel), origin_(origin), width_(width), base_(p.font()) {}

    void paint() {
        p_.setFont(sized(base_, kPanelTitlePx, true));
        p_.setPen(kInk);
        const QRectF titleRect(origin_.x() + kRowCaptionW, origin_.y(), width_ - kRowCaptionW,
                               kPanelTitleH - 6);
        p_.drawText(
            titleRect, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(p_.font()).elidedText(panel_.title, Qt::ElideRight, titleRect.width()));
        grid_ = QPointF(origin_.x() + kRowCaptionW + kRowLabelW, origin_.y() + kPanelTitleH);
        const Eigen::MatrixXd& values = panel_.matrix.values;
        if (values.size() == 0) {
            p_.setFont(sized(base_, kTickPx));
            p_.setPen(kQuiet);
            p_.drawText(QRectF(grid_, QSizeF(kEmptySide, kEmptySide)), Qt::AlignCenter, "no data");
            return;
        }
        blocks_ = displayBlocks(values.rows(), values.cols(), kFigureCellsUpTo, kFigureCellsUpTo);
        cells_ = displayCells(values, kFigureCellsUpTo, kFigureCellsUpTo);
        const BoolMatrix& mask = panel_.mask;
        if (mask.rows() == values.rows() && mask.cols() == values.cols())
            shade_ = maskedShade(mask, kFigureCellsUpTo, kFigureCellsUpTo);
        cell_ = cellSide(cells_.rows(), cells_.cols());
        size_ = QSizeF(double(cells_.cols()) * cell_, double(cells_.rows()) * cell_);
        paintCells();
        paintRowTicks();
        paintColumnTicks();
        paintColourBar();
    }

private:
    bool masked(Eigen::Index r, Eigen::Index c) const {
        return shade_.size() > 0 && shade_(r, c) > 0.5;
    }

    QString entryText(Eigen::Index r, Eigen::Index c) const {
        const ViewMatrix& m = panel_.matrix;
        const double v = m.values(r, c);
        if (m.exactText.empty()) return QString::fromStdString(shortNumber(v));
        return QString::fromStdString(
            shortCellText(m.exactText[std::size_t(r * m.values.cols() + c)], v, 7));
    }

    void paintCells() {
        // Small cells have no white lines between them: each then reaches under its right and
        // lower neighbours, so that a viewer's antialiasing leaves no hairline seam between
        // adjacent rectangles.
        const bool lined = cell_ >= 12;
        const double under = lined ? 0 : std::min(1.0, cell_ / 2);
        p_.setPen(lined ? QPen(Qt::white, 1) : QPen(Qt::NoPen));
        for (Eigen::Index r = 0; r < cells_.rows(); ++r)
            for (Eigen::Index c = 0; c < cells_.cols(); ++c) {
                p_.setBrush(masked(r, c) ? kMasked
                                         : colourOf(panel_.scale, panel_.range, cells_(r, c)));
                const bool lastRow = r + 1 == cells_.rows(), lastColumn = c + 1 == cells_.cols();
                p_.drawRect(
                    cellRect(r, c).adjusted(0, 0, lastColumn ? 0 : under, lastRow ? 0 : under));
            }
        p_.setBrush(Qt::NoBrush);
        p_.setPen(QPen(kFrame, 1));
        p_.drawRect(QRectF(grid_, size_));
        paintHighlights();
        const bool drawnAsIs = !panel_.matrix.pooled() && blocks_ == std::pair{1, 1};
        if (drawnAsIs && cells_.rows() <= kFigureNumbersUpTo && cells_.cols() <= kFigureNumbersUpTo)
            paintNumbers();
    }

    /// Outlines the drawn cells that hold a witness cell.
    void paintHighlights() {
        const int rowsPerCell = panel_.matrix.rowBlock * blocks_.first,
                  colsPerCell = panel_.matrix.colBlock * blocks_.second;
        p_.setBrush(Qt::NoBrush);
        p_.setPen(QPen(kWitness, std::clamp(cell_ / 8, 2.0, 4.0)));
        for (const QPoint& cell : panel_.highlights) {
            const Eigen::Index r = cell.x() / rowsPerCell, c = cell.y() / colsPerCell;
            if (r < cells_.rows() && c < cells_.cols())
                p_.drawRect(cellRect(r, c).adjusted(1, 1, -1, -1));
        }
    }

    void paintNumbers() {
        const int fullPx = int(std::min(20.0, cell_ * 0.36));
        for (Eigen::Index r = 0; r < cells_.rows(); ++r)
            for (Eigen::Index c = 0; c < cells_.cols(); ++c) {
                const QString text = entryText(r, c);
                QFont font = sized(base_, fullPx);
                const double width = QFontMetricsF(font).horizontalAdvance(text);
                if (width > cell_ - 4) font.setPixelSize(int(fullPx * (cell_ - 4) / width));
                if (font.pixelSize() < 7) continue; // too small to read: the colour says it
                p_.setFont(font);
                p_.setPen(masked(r, c)
                              ? kQuiet
                              : textOn(colourOf(panel_.scale, panel_.range, cells_(r, c))));
                p_.drawText(cellRect(r, c), Qt::AlignCenter, text);
            }
    }

    QRectF cellRect(Eigen::Index r, Eigen::Index c) const {
        return QRectF(grid_.x() + double(c) * cell_, grid_.y() + double(r) * cell_, cell_, cell_);
    }

    /// Every how many cells a label fits, for labels `extent` pixels long along the axis.
    int stepFor(double extent) const { return std::max(1, int(std::ceil(extent / cell_))); }

    void paintRowTicks() {
        p_.setFont(sized(base_, kTickPx));
        const QFontMetricsF metrics(p_.font());
        const QStringList texts =
            tickTexts(panel_.rowLabels, int(cells_.rows()), panel_.matrix.rowBlock * blocks_.first);
        const int step = stepFor(metrics.height());
        p_.setPen(kInk);
        for (int r = 0; r < texts.size(); r += step) {
            const QRectF rect(grid_.x() - kRowLabelW,
                              cellRect(r, 0).center().y() - metrics.height() / 2, kRowLabelW - 6,
                              metrics.height());
            p_.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                        metrics.elidedText(texts[r], Qt::ElideRight, rect.width()));
        }
        p_.setFont(sized(base_, kCaptionPx));
        p_.setPen(kQuiet);
        p_.save();
        p_.translate(origin_.x() + 2, grid_.y() + size_.height() / 2);
        p_.rotate(-90);
        p_.drawText(QRectF(-kArea / 2.0, 0, kArea, kRowCaptionW - 4), Qt::AlignCenter,
                    panel_.rowAxis);
        p_.restore();
    }

    void paintColumnTicks() {
        p_.setFont(sized(base_, kTickPx));
        const QFontMetricsF metrics(p_.font());
        const QStringList texts = tickTexts(panel_.columnLabels, int(cells_.cols()),
                                            panel_.matrix.colBlock * blocks_.second);
        double widest = 0;
        for (const QString& t : texts)
            widest = std::max(widest, std::min(metrics.horizontalAdvance(t), kColumnLabelH - 8.0));
        const int across = stepFor(widest + 8), upright = stepFor(metrics.height());
        const bool rotated = across > upright; // upright labels: more of them fit
        const double top = grid_.y() + size_.height() + 4;
        p_.setPen(kInk);
        for (int c = 0; c < texts.size(); c += rotated ? upright : across) {
            const QRectF cell = cellRect(0, c);
            if (rotated) {
                p_.save();
                p_.translate(cell.center().x(), top);
                p_.rotate(-90);
                const QRectF rect(-(kColumnLabelH - 8.0), -metrics.height() / 2,
                                  kColumnLabelH - 8.0, metrics.height());
                p_.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                            metrics.elidedText(texts[c], Qt::ElideRight, rect.width()));
                p_.restore();
            } else {
                const double w = cell_ * across;
                const QRectF rect(cell.center().x() - w / 2, top, w, metrics.height());
                p_.drawText(rect, Qt::AlignHCenter | Qt::AlignTop,
                            metrics.elidedText(texts[c], Qt::ElideRight, w));
            }
        }
        const double labelsH = rotated ? kColumnLabelH : metrics.height() + 8;
        p_.setFont(sized(base_, kCaptionPx));
        p_.setPen(kQuiet);
        const double captionW = std::max(size_.width(), double(kEmptySide));
        p_.drawText(QRectF(grid_.x() + (size_.width() - captionW) / 2, top + labelsH, captionW,
                           kColumnCaptionH),
                    Qt::AlignHCenter | Qt::AlignTop, panel_.columnAxis);
    }

    void paintColourBar() {
        const double height = std::max(size_.height(), double(kShortestBar));
        const QRectF bar(grid_.x() + size_.width() + kBarGap, grid_.y(), kBarW, height);
        const double band = height / kBarBands;
        p_.setPen(Qt::NoPen);
        for (int i = 0; i < kBarBands; ++i) {
            const Rgb rgb = colourAt(panel_.scale, 1.0 - (i + 0.5) / kBarBands);
            p_.setBrush(QColor(rgb[0], rgb[1], rgb[2]));
            p_.drawRect(QRectF(bar.x(), bar.y() + i * band, kBarW, band + 0.5));
        }
        p_.setBrush(Qt::NoBrush);
        p_.setPen(QPen(kFrame, 1));
        p_.drawRect(bar);
        p_.setFont(sized(base_, kTickPx));
        p_.setPen(kInk);
        const QFontMetricsF metrics(p_.font());
        const auto label = [&](double y, double value, Qt::Alignment align) {
            const QRectF rect(bar.right() + 6, y, kBarLabelW - 6, metrics.height());
            p_.drawText(rect, Qt::AlignLeft | align,
                        metrics.elidedText(QString::fromStdString(shortNumber(value)),
                                           Qt::ElideRight, rect.width()));
        };
        label(bar.top(), panel_.range.hi, Qt::AlignTop);
        label(bar.bottom() - metrics.height(), panel_.range.lo, Qt::AlignBottom);
        if (panel_.scale == ColourScale::Diverging)
            label(bar.center().y() - metrics.height() / 2, 0, Qt::AlignVCenter);
    }

    QPainter& p_;
    const FigurePanel& panel_;
    QPointF origin_, grid_;
    double width_;
    QFont base_;
    std::pair<int, int> blocks_{1, 1};
    Eigen::MatrixXd cells_, shade_;
    double cell_ = 1;
    QSizeF size_;
};

} // namespace

QSize figureSize(const Figure& figure) {
    return layoutOf(figure).size;
}

void paintFigure(QPainter& painter, const Figure& figure) {
    const QSize size = figureSize(figure);
    painter.save();
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    painter.fillRect(QRect(QPoint(), size), Qt::white);
    QFont base = painter.font();
    base.setStyleHint(QFont::SansSerif);
    const double width = size.width() - 2.0 * kMargin;
    painter.setPen(kInk);
    painter.setFont(sized(base, kTitlePx, true));
    painter.drawText(QRectF(kMargin, kMargin, width, kTitlePx + 8), Qt::AlignLeft | Qt::AlignTop,
                     QFontMetricsF(painter.font()).elidedText(figure.title, Qt::ElideRight, width));
    painter.setFont(sized(base, kSubtitlePx));
    painter.setPen(kQuiet);
    double y = kMargin + kTitlePx + 14;
    for (const QString& line : figure.subtitle) {
        painter.drawText(QRectF(kMargin, y, width, kTitleBlockLine), Qt::AlignLeft | Qt::AlignTop,
                         QFontMetricsF(painter.font()).elidedText(line, Qt::ElideRight, width));
        y += kTitleBlockLine;
    }
    painter.setFont(base);
    const Layout layout = layoutOf(figure);
    const std::size_t columns = layout.x.size();
    for (std::size_t i = 0; i < figure.panels.size(); ++i) {
        const std::size_t row = i / columns, column = i % columns;
        PanelPainter(painter, figure.panels[i], QPointF(layout.x[column], layout.y[row]),
                     layout.width[column])
            .paint();
    }
    painter.restore();
}

} // namespace attnlab::ui
