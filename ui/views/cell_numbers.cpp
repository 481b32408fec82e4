// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing short numbers into heatmap cells.
#include "ui/views/cell_numbers.h"

#include "core/formats/color_maps.h"
#include "core/formats/short_number.h"

#include <algorithm>

namespace attnlab::ui {

CellNumbers::CellNumbers(QCPColorMap* map, const QString& layer)
    : QCPLayerable(map->parentPlot(), layer), map_(map) {}

void CellNumbers::setFont(const QFont& font, double smallestPoints) {
    font_ = font;
    smallest_ = smallestPoints;
    fittedFor_ = {};
}

void CellNumbers::setTexts(const ViewMatrix& matrix, int digits) {
    const Eigen::MatrixXd& v = matrix.values;
    texts_.clear();
    texts_.reserve(int(v.size()));
    for (Eigen::Index i = 0; i < v.rows(); ++i)
        for (Eigen::Index j = 0; j < v.cols(); ++j)
            texts_ << QString::fromStdString(shortCellText(
                matrix.exactText.empty() ? std::string()
                                         : matrix.exactText[std::size_t(i * v.cols() + j)],
                v(i, j), 5, digits));
    rows_ = int(v.rows());
    columns_ = int(v.cols());
    fittedFor_ = {};
}

void CellNumbers::clear() {
    texts_.clear();
    rows_ = columns_ = 0;
    fittedFor_ = {};
}

QRectF CellNumbers::cellRect(int row, int column) const {
    const QCPAxis* x = map_->keyAxis();
    const QCPAxis* y = map_->valueAxis();
    return QRectF(QPointF(x->coordToPixel(column - 0.5), y->coordToPixel(row - 0.5)),
                  QPointF(x->coordToPixel(column + 0.5), y->coordToPixel(row + 0.5)))
        .normalized();
}

QSizeF CellNumbers::cellSize() const {
    return rows_ > 0 ? cellRect(0, 0).size() : QSizeF();
}

const QFont& CellNumbers::fittedFont() const {
    const QSizeF cell = cellSize();
    if (cell == fittedFor_) return fitted_;
    fittedFor_ = cell;
    fitted_ = font_;
    const double base = font_.pointSizeF();
    double widest = 0;
    const QFontMetricsF metrics(font_);
    for (const QString& text : texts_)
        widest = std::max(widest, metrics.horizontalAdvance(text));
    // Grown with the cell's height (a third of it in text, up to twice the size), then shrunk
    // until the widest text fits with a pixel or two each side and a line fits the height.
    const double grown = std::clamp(cell.height() / 3 / metrics.height(), 1.0, 2.0);
    const double wide = widest > 0 ? (cell.width() - 4) / widest : grown;
    const double high = cell.height() / metrics.height();
    const double scale = std::max(std::min({grown, wide, high}), smallest_ / base);
    fitted_.setPointSizeF(base * scale);
    allFit_ = widest * scale + 2 <= cell.width() && metrics.height() * scale <= cell.height();
    return fitted_;
}

QString CellNumbers::shownText(int row, int column) const {
    if (row < 0 || column < 0 || row >= rows_ || column >= columns_) return {};
    fittedFont();
    return allFit_ ? texts_[row * columns_ + column] : QString();
}

void CellNumbers::applyDefaultAntialiasingHint(QCPPainter* painter) const {
    painter->setAntialiasing(true); // text reads better smoothed
}

QRect CellNumbers::clipRect() const {
    return map_->keyAxis()->axisRect()->rect();
}

void CellNumbers::draw(QCPPainter* painter) {
    painter->setFont(fittedFont());
    QCPColorGradient gradient = map_->gradient(); // color() fills its cache: not const
    for (int i = 0; i < rows_; ++i)
        for (int j = 0; j < columns_; ++j) {
            const QString text = shownText(i, j);
            if (text.isEmpty()) continue;
            const QColor cell(gradient.color(map_->data()->cell(j, i), map_->dataRange()));
            const bool dark = darkTextOn(
                {std::uint8_t(cell.red()), std::uint8_t(cell.green()), std::uint8_t(cell.blue())});
            painter->setPen(dark ? QColor(20, 20, 20) : QColor(250, 250, 250));
            painter->drawText(cellRect(i, j), Qt::AlignCenter, text);
        }
}

} // namespace attnlab::ui
