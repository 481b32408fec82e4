// Drawing short numbers into heatmap cells.
#include "ui/views/cell_numbers.h"

#include "core/io/color_maps.h"

namespace attnlab::ui {

CellNumbers::CellNumbers(QCPColorMap* map, const QString& layer)
    : QCPLayerable(map->parentPlot(), layer), map_(map) {}

void CellNumbers::setTexts(const QStringList& texts, int rows, int columns) {
    texts_ = texts;
    rows_ = texts.isEmpty() ? 0 : rows;
    columns_ = texts.isEmpty() ? 0 : columns;
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

QString CellNumbers::shownText(int row, int column) const {
    if (row < 0 || column < 0 || row >= rows_ || column >= columns_) return {};
    const QString& text = texts_[row * columns_ + column];
    const QSizeF cell = cellRect(row, column).size();
    const QFontMetricsF metrics(font_);
    const bool fits =
        metrics.horizontalAdvance(text) + 2 <= cell.width() && metrics.height() <= cell.height();
    return fits ? text : QString();
}

void CellNumbers::applyDefaultAntialiasingHint(QCPPainter* painter) const {
    painter->setAntialiasing(true); // text reads better smoothed
}

QRect CellNumbers::clipRect() const {
    return map_->keyAxis()->axisRect()->rect();
}

void CellNumbers::draw(QCPPainter* painter) {
    painter->setFont(font_);
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
