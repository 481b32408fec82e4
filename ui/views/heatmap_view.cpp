// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing a ViewMatrix with QCustomPlot.
#include "ui/views/heatmap_view.h"

#include "ui/views/band_outline.h"
#include "ui/views/cell_numbers.h"
#include "ui/views/color_maps.h"
#include "ui/views/heatmap_sizes.h"
#include "ui/views/heatmap_words.h"
#include "ui/views/stale_veil.h"

#include <QEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <utility>

#include <qcustomplot.h>

namespace attnlab::ui {

namespace {

/// The smallest cell (pixels, normal scale) that "numbers" forced on writes into.
constexpr double kNumberCellPixels = 18;
/// Automatic numbers up to this many rows and columns.
constexpr int kAutoNumbersUpTo = 16;

} // namespace

HeatmapView::HeatmapView(const QString& title, Scale scale, QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), cells_(plot_), veil_(new StaleVeil(this)),
      scale_(scale) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumSize(180, 160);

    title_ = new QCPTextElement(plot_, title, sized(kTitlePoints, true));
    titleText_ = title;

    plot_->addLayer("numbers", plot_->layer("main"), QCustomPlot::limAbove);
    numbers_ = new CellNumbers(cells_.map(), "numbers");
    band_ = new BandOutline(cells_.map(), "numbers");
    message_ = new QCPItemText(plot_);
    message_->setLayer("numbers");
    message_->position->setType(QCPItemPosition::ptAxisRectRatio);
    message_->position->setCoords(0.5, 0.5);
    message_->setPadding(QMargins(6, 3, 6, 3));
    message_->setBrush(QColor(255, 255, 255, 220));
    message_->setPen(QPen(QColor(90, 90, 90)));
    message_->setColor(QColor(20, 20, 20));
    message_->setVisible(false);

    colorScale_ = new QCPColorScale(plot_);
    // The title over the map and its colour bar together (the widest line it can have); the map
    // and the bar side by side under it.
    QCPLayoutGrid* plotLayout = plot_->plotLayout();
    QCPAxisRect* cells = plot_->axisRect();
    plotLayout->take(cells);
    cells->setMinimumMargins(QMargins(4, 4, 4, 4)); // not QCustomPlot's 15: the cells get the room
    body_ = new QCPLayoutGrid;
    plotLayout->addElement(0, 0, title_);
    plotLayout->addElement(1, 0, body_);
    body_->addElement(0, 0, cells);
    body_->addElement(0, 1, colorScale_);
    colorScale_->setType(QCPAxis::atRight);
    cells_.map()->setColorScale(colorScale_); // the map takes the scale's gradient: set it there
    colorScale_->setGradient(gradientOf(scale));
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    colorScale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    plot_->yAxis->setRangeReversed(true);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis})
        axis->grid()->setVisible(false);
    // A frame on all four sides, so that a map of neutral cells stands out from the background.
    for (QCPAxis* axis : {plot_->xAxis2, plot_->yAxis2}) {
        axis->setVisible(true);
        axis->setTicks(false);
        axis->setTickLabels(false);
        axis->setPadding(0); // a frame, no room for what it does not have
        axis->setTickLabelPadding(0);
        axis->setLabelPadding(0);
    }
    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot_->xAxis2,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(plot_->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot_->yAxis2,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    plot_->yAxis2->setRangeReversed(true);
    plot_->xAxis->setLabel(columnTitle_);
    plot_->yAxis->setLabel(rowTitle_);
    plot_->setNotAntialiasedElements(QCP::aeAll); // cells and axes are axis-aligned: no need
    // A replot asks for an update, not an immediate repaint: the maps an edit changes are then
    // painted and flushed together, once, rather than one repaint and flush each.
    plot_->setPlottingHint(QCP::phImmediateRefresh, false);
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, &HeatmapView::showTooltip);
    // Laid out at a new size (shown, resized): pool again if that changes how many cells fit.
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        cells_.refit(matrix_);
        updateTicks();
        updateNumbers();
        fitTitle();
        fitColourLabel();
        fitMessage();
        squareCells();
    });
    applySizes();
    applyPalette();
    setMatrix({});
}

QFont HeatmapView::sized(double points, bool bold) const {
    return sizedFont(font().family(), points, sizeScale_, bold);
}

void HeatmapView::setPresentation(bool on) {
    const double scale = on ? kPresentationScale : 1.0;
    if (scale == sizeScale_) return;
    sizeScale_ = scale;
    applySizes();
}

void HeatmapView::applySizes() {
    fitTitle();
    // Presentation mode gives the cells the room: a bar no wider and texts closer to the map.
    const bool presenting = sizeScale_ > 1;
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis, colorScale_->axis()}) {
        axis->setTickLabelFont(sized(kTickPoints));
        axis->setLabelFont(sized(kTickPoints));
        axis->setTickLabelPadding(presenting ? 2 : 5);
        axis->setLabelPadding(presenting ? 2 : 5);
    }
    colorScale_->setBarWidth(8);
    QFont numbers = sized(kNumberPoints);
    if (presenting) numbers.setStretch(QFont::SemiCondensed); // narrower digits, larger ones fit
    numbers_->setFont(numbers, presenting ? kReadableNumberPoints : kSmallestNumberPoints);
    numbers_->clear(); // written again in the digits of the new mode
    veil_->setFont(sized(kTitlePoints * 1.5, true));
    fitMessage();
    ticks_.reset(); // token labels in the new font
    updateTicks();
    band_->setScale(sizeScale_);
    redrawHighlights();
    updateNumbers();
}

QFont HeatmapView::titleFont() const {
    return title_->font();
}

void HeatmapView::setAxisTitles(const QString& columns, const QString& rows) {
    columnTitle_ = columns;
    rowTitle_ = rows;
    if (matrix_.values.size() > 0) plot_->xAxis->setLabel(columns);
    plot_->yAxis->setLabel(rows);
    replotWhenShown();
}

void HeatmapView::setColourLabel(const QString& label, const QStringList& shorter) {
    colourLabels_ = QStringList{label} + shorter;
    updateLegend();
}

void HeatmapView::setBand(std::optional<int> radius) {
    const auto& v = matrix_.values;
    band_->setBand(radius, int(v.rows()) * matrix_.rowBlock, int(v.cols()) * matrix_.colBlock);
    replotWhenShown();
}

std::optional<int> HeatmapView::bandRadius() const {
    return band_->radius();
}

void HeatmapView::setSquareCells(bool square) {
    squareCells_ = square;
    if (!square) body_->setMargins(QMargins());
    replotWhenShown();
}

void HeatmapView::squareCells() {
    const auto& v = matrix_.values;
    if (!squareCells_ || v.size() == 0) return;
    // The room the map has with no trimming, and the largest square cells that fill it.
    const QMargins trimmed = body_->margins();
    const QRect area = plot_->axisRect()->rect();
    const int width = area.width() + trimmed.left() + trimmed.right();
    const int height = area.height() + trimmed.top() + trimmed.bottom();
    const double columns = double(v.cols()) * matrix_.colBlock;
    const double rows = double(v.rows()) * matrix_.rowBlock;
    const double cell = std::min(width / columns, height / rows);
    const int spareWidth = std::max(0, width - int(std::lround(cell * columns)));
    const int spareHeight = std::max(0, height - int(std::lround(cell * rows)));
    const QMargins square(spareWidth / 2, 0, spareWidth - spareWidth / 2, spareHeight);
    const QMargins change = square - trimmed;
    if (std::max({std::abs(change.left()), std::abs(change.right()), std::abs(change.bottom())}) <=
        1)
        return; // square within a pixel: no layout again for that
    body_->setMargins(square);
    replotWhenShown();
}

QString HeatmapView::colourLabel() const {
    return colorScale_->axis()->label();
}

QString HeatmapView::plotMessage() const {
    return message_->visible() ? message_->text() : QString();
}

void HeatmapView::setFixedRange(std::optional<ValueRange> range) {
    fixedRange_ = range;
    if (matrix_.values.size() == 0) return;
    const ValueRange r = range ? *range : colourRange(scale_, matrix_.values);
    cells_.map()->setDataRange(QCPRange(r.lo, r.hi));
    replotWhenShown();
}

ValueRange HeatmapView::drawnRange() const {
    const QCPRange r = cells_.map()->dataRange();
    return {r.lower, r.upper};
}

void HeatmapView::updateLegend() {
    fitColourLabel();
    const QString message = differenceMessage(scale_, matrix_);
    message_->setText(message);
    message_->setVisible(!message.isEmpty());
    fitMessage();
    replotWhenShown();
}

void HeatmapView::setNumbers(Numbers numbers) {
    if (numbers == numbersMode_) return;
    numbersMode_ = numbers;
    updateNumbers();
}

bool HeatmapView::numbersWanted() const {
    const auto& v = matrix_.values;
    if (numbersMode_ == Numbers::Off || v.size() == 0 || matrix_.pooled() ||
        cells_.displayBlock() != std::pair{1, 1} || message_->visible())
        return false; // a zero or rounding-only difference is said once, across the plot
    if (numbersMode_ == Numbers::Auto)
        return v.rows() <= kAutoNumbersUpTo && v.cols() <= kAutoNumbersUpTo;
    const QRect area = plot_->axisRect()->rect();
    const double smallest = kNumberCellPixels * sizeScale_;
    return area.width() >= smallest * double(v.cols()) &&
           area.height() >= smallest * double(v.rows());
}

void HeatmapView::updateNumbers() {
    const bool wanted = numbersWanted();
    if (wanted == numbers_->hasTexts()) return;
    if (wanted)
        numbers_->setTexts(matrix_, sizeScale_ > 1 ? kPresentationNumberDigits : kNumberDigits);
    else
        numbers_->clear();
    replotWhenShown();
}

QString HeatmapView::cellNumber(int row, int column) const {
    return numbers_->shownText(row, column);
}

QFont HeatmapView::cellNumberFont() const {
    return numbers_->shownFont();
}

QColor HeatmapView::cellColour(int row, int column) const {
    return cells_.colour(matrix_, row, column);
}

void HeatmapView::setTitle(const QString& title) {
    titleText_ = title;
    fitTitle();
    replotWhenShown();
}

void HeatmapView::fitTitle() {
    const QString text = title_->text();
    const QFont font = title_->font();
    titleElided_ = ui::fitTitle(title_, titleText_, sized(kTitlePoints, true));
    if (title_->text() != text || title_->font() != font) replotWhenShown(); // laid out anew
}

void HeatmapView::fitColourLabel() {
    // A difference's tolerance, drawn neutral, said in full where the bar is long enough.
    const QStringList labels = colourLabelsWithTolerance(colourLabels_, matrix_.tolerance);
    const QString shown = colorScale_->axis()->label();
    const int length = colorScale_->axis()->axisRect()->rect().height();
    colourLabelElided_ = length > 0 ? fitAxisLabel(colorScale_->axis(), labels, length) : false;
    if (length <= 0) colorScale_->axis()->setLabel(labels.front());
    if (colorScale_->axis()->label() != shown) replotWhenShown(); // laid out anew
}

void HeatmapView::fitMessage() {
    ui::fitMessage(message_, font().family(), sizeScale_, plot_->axisRect());
}

QString HeatmapView::title() const {
    return titleText_;
}

void HeatmapView::setMatrix(const ViewMatrix& matrix, const QString& emptyText) {
    // An edit often leaves a view as it was (a difference that stays zero, a layer the edit
    // did not reach): nothing to colour or draw again.
    if (matrix.values.size() > 0 && matrix == matrix_) return;
    matrix_ = matrix;
    const auto& v = matrix_.values;
    band_->setBand(band_->radius(), int(v.rows()) * matrix_.rowBlock,
                   int(v.cols()) * matrix_.colBlock); // the band on the new extent
    if (v.size() == 0) {
        cells_.clear();
        plot_->xAxis->setRange(0, 1);
        plot_->yAxis->setRange(0, 1);
        plot_->xAxis->setLabel(emptyText.isEmpty() ? columnTitle_ : emptyText);
        numbers_->clear();
        updateLegend();
        return;
    }
    plot_->xAxis->setLabel(columnTitle_);
    setFixedRange(fixedRange_);
    const double width = double(v.cols()) * matrix_.colBlock;
    const double height = double(v.rows()) * matrix_.rowBlock;
    plot_->xAxis->setRange(-0.5, width - 0.5);
    plot_->yAxis->setRange(-0.5, height - 0.5);
    ticks_.reset();
    updateTicks();
    cells_.setMatrix(matrix_); // without the old overlay (setMaskOverlay gives the new one)
    redrawHighlights();
    numbers_->clear(); // the old texts go; new ones are made if wanted
    updateLegend();    // first: a map that the message covers gets no numbers
    updateNumbers();
}

void HeatmapView::setAxisLabels(const std::vector<std::string>& rows,
                                const std::vector<std::string>& columns) {
    QStringList r, c;
    for (const std::string& label : rows)
        r << QString::fromStdString(label);
    for (const std::string& label : columns)
        c << QString::fromStdString(label);
    if (!ticks_.setLabels(r, c)) return;
    updateTicks();
    replotWhenShown();
}

void HeatmapView::updateTicks() {
    if (ticks_.update(plot_, matrix_, font().family(), sizeScale_)) replotWhenShown();
}

QStringList HeatmapView::tickLabels(Qt::Orientation orientation) const {
    QCPAxis* axis = orientation == Qt::Horizontal ? plot_->xAxis : plot_->yAxis;
    const QVector<QString> labels = axis->tickVectorLabels();
    return QStringList(labels.begin(), labels.end());
}

void HeatmapView::setMaskOverlay(const BoolMatrix& mask) {
    if (cells_.setMask(matrix_, mask)) replotWhenShown();
}

void HeatmapView::setHighlights(const QList<QPoint>& cells) {
    highlights_ = cells;
    redrawHighlights();
}

void HeatmapView::redrawHighlights() {
    for (QCPItemRect* outline : outlines_)
        plot_->removeItem(outline);
    outlines_.clear();
    if (matrix_.values.size() > 0) {
        const QColor outline = palette().color(QPalette::Highlight);
        for (const QPoint& cell : highlights_) {
            const int r = cell.x() / matrix_.rowBlock * matrix_.rowBlock;
            const int c = cell.y() / matrix_.colBlock * matrix_.colBlock;
            auto* rect = new QCPItemRect(plot_);
            rect->topLeft->setCoords(c - 0.5, r - 0.5);
            rect->bottomRight->setCoords(c + matrix_.colBlock - 0.5, r + matrix_.rowBlock - 0.5);
            rect->setPen(QPen(QColor(230, 0, 60), 2.5 * sizeScale_));
            rect->setBrush(Qt::NoBrush);
            rect->setSelectedPen(QPen(outline, 2.5 * sizeScale_));
            // An edge cell's outline shows all four sides: not clipped by the frame, and drawn
            // over it and its ticks.
            rect->setClipToAxisRect(false);
            rect->setLayer("overlay");
            outlines_ << rect;
        }
    }
    replotWhenShown();
}

QString HeatmapView::cellText(int row, int column) const {
    return cellTooltip(matrix_, ticks_.rowLabels(), ticks_.columnLabels(), row, column);
}

void HeatmapView::showTooltip(QMouseEvent* event) {
    if (matrix_.values.size() == 0) return;
    const double x = plot_->xAxis->pixelToCoord(event->pos().x());
    const double y = plot_->yAxis->pixelToCoord(event->pos().y());
    const QString text = cellText(int(std::floor(y + 0.5)), int(std::floor(x + 0.5)));
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

void HeatmapView::setStale(bool stale) {
    veil_->setVisible(stale);
    if (stale) veil_->raise();
}

bool HeatmapView::isStale() const {
    return !veil_->isHidden();
}

void HeatmapView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    veil_->setGeometry(rect());
}

void HeatmapView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) applyPalette();
    QWidget::changeEvent(event);
}

void HeatmapView::applyPalette() {
    const QPalette p = palette();
    const QColor text = p.color(QPalette::WindowText);
    plot_->setBackground(p.color(QPalette::Window));
    plot_->axisRect()->setBackground(p.color(QPalette::Base));
    title_->setTextColor(text);
    for (QCPAxis* axis :
         {plot_->xAxis, plot_->yAxis, plot_->xAxis2, plot_->yAxis2, colorScale_->axis()}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
    }
    replotWhenShown();
}

void HeatmapView::replotWhenShown() {
    if (isVisible())
        plot_->replot(QCustomPlot::rpQueuedReplot);
    else
        replotPending_ = true;
}

void HeatmapView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (std::exchange(replotPending_, false)) plot_->replot();
}

} // namespace attnlab::ui
