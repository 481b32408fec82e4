// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing a ViewMatrix with QCustomPlot.
#include "ui/views/heatmap_view.h"

#include "core/explore/display_pooling.h"
#include "core/formats/short_number.h"
#include "ui/views/band_outline.h"
#include "ui/views/cell_numbers.h"
#include "ui/views/color_maps.h"
#include "ui/views/heatmap_sizes.h"
#include "ui/views/stale_veil.h"

#include <QEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <utility>

#include <qcustomplot.h>

namespace attnlab::ui {

namespace {

/// Cell centres of a pooled axis: cell j stands for tokens [j·block, (j+1)·block).
QCPRange centres(Eigen::Index cells, int block) {
    const double half = (block - 1) / 2.0;
    return {half, double(cells - 1) * block + half};
}

/// The smallest cell (pixels, normal scale) that "numbers" forced on writes into.
constexpr double kNumberCellPixels = 18;
/// Automatic numbers up to this many rows and columns.
constexpr int kAutoNumbersUpTo = 16;

} // namespace

HeatmapView::HeatmapView(const QString& title, Scale scale, QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), veil_(new StaleVeil(this)), scale_(scale) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumSize(180, 160);

    title_ = new QCPTextElement(plot_, title, sized(kTitlePoints, true));
    titleText_ = title;

    map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    overlay_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    overlay_->setInterpolate(false);
    overlay_->setGradient(maskOverlayGradient());
    overlay_->setDataRange(QCPRange(0, 1));
    overlay_->setVisible(false);
    plot_->addLayer("numbers", plot_->layer("main"), QCustomPlot::limAbove);
    numbers_ = new CellNumbers(map_, "numbers");
    band_ = new BandOutline(map_, "numbers");
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
    map_->setColorScale(colorScale_); // the map takes the scale's gradient: set it there
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
        if (matrix_.values.size() > 0 && pixelBlocks() != displayBlock_) fillCells();
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
    map_->setDataRange(QCPRange(r.lo, r.hi));
    replotWhenShown();
}

ValueRange HeatmapView::drawnRange() const {
    const QCPRange r = map_->dataRange();
    return {r.lower, r.upper};
}

void HeatmapView::updateLegend() {
    fitColourLabel();
    const auto& v = matrix_.values;
    QString message;
    if (scale_ == Scale::Diverging && v.size() > 0) {
        const double largest = v.cwiseAbs().maxCoeff();
        if (largest == 0)
            message = "exactly 0";
        else if (largest <= matrix_.tolerance)
            message = "rounding only"; // the tolerance is on the colour bar
    }
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
        displayBlock_ != std::pair{1, 1} || message_->visible())
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
    const auto [bh, bw] = displayBlock_;
    const int i = row / (matrix_.rowBlock * bh), j = column / (matrix_.colBlock * bw);
    QCPColorMapData* data = map_->data();
    if (row < 0 || column < 0 || i >= data->valueSize() || j >= data->keySize()) return {};
    return QColor(map_->gradient().color(data->cell(j, i), map_->dataRange()));
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
    QStringList labels = colourLabels_;
    const double tol = matrix_.tolerance;
    if (tol > 0) {
        const QString t = QString::fromStdString(shortNumber(tol, 2)), first = labels.front();
        labels = QStringList{first + QString("\n±tol = %1 drawn neutral").arg(t),
                             first + QString("\n±%1 drawn neutral").arg(t),
                             first + QString("\n±%1 neutral").arg(t)} +
                 labels;
    }
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
        map_->data()->setSize(0, 0);
        map_->setVisible(false);
        overlay_->setVisible(false);
        plot_->xAxis->setRange(0, 1);
        plot_->yAxis->setRange(0, 1);
        plot_->xAxis->setLabel(emptyText.isEmpty() ? columnTitle_ : emptyText);
        numbers_->clear();
        updateLegend();
        return;
    }
    plot_->xAxis->setLabel(columnTitle_);
    map_->setVisible(true);
    setFixedRange(fixedRange_);
    const double width = double(v.cols()) * matrix_.colBlock;
    const double height = double(v.rows()) * matrix_.rowBlock;
    plot_->xAxis->setRange(-0.5, width - 0.5);
    plot_->yAxis->setRange(-0.5, height - 0.5);
    ticks_.reset();
    updateTicks();
    mask_ = {}; // a new matrix drops the old overlay (setMaskOverlay gives the new one)
    overlay_->setVisible(false);
    fillMap();
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
    const auto& v = matrix_.values;
    const bool fits =
        mask.size() > 0 && !matrix_.pooled() && mask.rows() == v.rows() && mask.cols() == v.cols();
    if (fits && mask_.rows() == mask.rows() && mask_.cols() == mask.cols() && (mask_ == mask).all())
        return; // the overlay shown already
    mask_ = fits ? mask : BoolMatrix();
    overlay_->setVisible(fits);
    fillOverlay();
    replotWhenShown();
}

std::pair<int, int> HeatmapView::pixelCells() const {
    const QRect area = plot_->axisRect()->rect();
    return {std::max(area.height(), 16), std::max(area.width(), 16)};
}

namespace {

/// Fills a colour map's cells with `values`, each cell standing for block x block tokens. A
/// single row or column is drawn as two halves: QCustomPlot sizes cells by the distance between
/// their centres, which one cell does not have.
void fill(QCPColorMap* map, const Eigen::MatrixXd& values, int rowBlock, int colBlock) {
    const auto cells = [](Eigen::Index n) { return int(std::max<Eigen::Index>(n, 2)); };
    const auto range = [](Eigen::Index n, int block) {
        return n > 1 ? centres(n, block) : QCPRange(block / 4.0 - 0.5, 3 * block / 4.0 - 0.5);
    };
    auto* data = map->data();
    data->setSize(cells(values.cols()), cells(values.rows()));
    data->setRange(range(values.cols(), colBlock), range(values.rows(), rowBlock));
    for (int i = 0; i < cells(values.rows()); ++i)
        for (int j = 0; j < cells(values.cols()); ++j)
            data->setCell(j, i,
                          values(std::min<Eigen::Index>(i, values.rows() - 1),
                                 std::min<Eigen::Index>(j, values.cols() - 1)));
}

} // namespace

std::pair<int, int> HeatmapView::pixelBlocks() const {
    const auto [maxRows, maxCols] = pixelCells();
    return displayBlocks(matrix_.values.rows(), matrix_.values.cols(), maxRows, maxCols);
}

void HeatmapView::fillCells() {
    fillMap();
    fillOverlay();
}

void HeatmapView::fillMap() {
    const auto& v = matrix_.values;
    if (v.size() == 0) return;
    // At most one cell per pixel of the plot (display_pooling.h).
    const auto [maxRows, maxCols] = pixelCells();
    displayBlock_ = pixelBlocks();
    const auto [bh, bw] = displayBlock_;
    const Eigen::MatrixXd cells = displayCells(v, maxRows, maxCols);
    fill(map_, matrix_.tolerance > 0 ? neutralWithin(cells, matrix_.tolerance) : cells,
         matrix_.rowBlock * bh, matrix_.colBlock * bw);
}

void HeatmapView::fillOverlay() {
    if (mask_.size() == 0) return;
    // At the map's cells; grey where every key of a cell is masked.
    const auto [maxRows, maxCols] = pixelCells();
    const auto [bh, bw] = displayBlock_;
    fill(overlay_, maskedShade(mask_, maxRows, maxCols), bh, bw);
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
            rect->setClipToAxisRect(false); // an edge cell's outline shows all four sides
            outlines_ << rect;
        }
    }
    replotWhenShown();
}

QString HeatmapView::cellText(int row, int column) const {
    const auto& v = matrix_.values;
    const int i = row / matrix_.rowBlock, j = column / matrix_.colBlock;
    if (row < 0 || column < 0 || i >= v.rows() || j >= v.cols()) return {};
    const QString value = QString::fromStdString(matrix_.text(i, j));
    const auto named = [](const QStringList& labels, int k) {
        return k < labels.size() ? QString("%1 “%2”").arg(k).arg(labels[k]) : QString::number(k);
    };
    // The colour bar may be too short to say it: a value within the tolerance is drawn neutral.
    const double tol = matrix_.tolerance;
    const QString neutral = tol > 0 && std::abs(v(i, j)) <= tol
                                ? QString(" (within ±tol = %1: drawn neutral)")
                                      .arg(QString::fromStdString(shortNumber(tol, 2)))
                                : QString();
    if (!matrix_.pooled())
        return QString("[%1, %2] = %3%4")
            .arg(named(ticks_.rowLabels(), row), named(ticks_.columnLabels(), column), value,
                 neutral);
    return QString("rows %1–%2, columns %3–%4: largest |value| %5")
        .arg(i * matrix_.rowBlock)
        .arg((i + 1) * matrix_.rowBlock - 1)
        .arg(j * matrix_.colBlock)
        .arg((j + 1) * matrix_.colBlock - 1)
        .arg(value + neutral);
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
