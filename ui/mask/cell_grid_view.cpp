// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing an n x n grid of categorised cells, one rectangle per cell or one image pixel per
// screen pixel.
#include "ui/mask/cell_grid_view.h"

#include "ui/mask/mask_palette.h"

#include <QHelpEvent>
#include <QImage>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attnlab::ui {

namespace {
// Cells narrower than this are drawn as an image (no grid lines, no patterns).
constexpr double kMinPatternCell = 6.0;
constexpr int kPad = 4;

// The smallest step from 1, 2, 5, 10, 20, 50, ... whose spacing is at least `minGap` pixels.
int labelStep(double cell, double minGap) {
    for (int scale = 1;; scale *= 10)
        for (int m : {1, 2, 5})
            if (m * scale * cell >= minGap || m * scale > 1000000) return m * scale;
}
} // namespace

CellGridView::CellGridView(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void CellGridView::setCells(int n, std::vector<unsigned char> categories) {
    Q_ASSERT(categories.size() == std::size_t(std::max(n, 0)) * std::max(n, 0));
    const bool resized = std::max(n, 0) != n_;
    n_ = std::max(n, 0);
    cats_ = std::move(categories);
    if (resized) updateGeometry(); // the query axis's labels may widen: heightForWidth
    update();
}

QPoint CellGridView::gridOrigin() const {
    const QFontMetrics fm = fontMetrics();
    const int labelWidth = fm.horizontalAdvance(QString::number(std::max(n_ - 1, 0)));
    return {fm.height() + labelWidth + 2 * kPad, 2 * fm.height() + kPad};
}

int CellGridView::heightForWidth(int width) const {
    const QPoint origin = gridOrigin();
    return std::max(width - origin.x() + origin.y(), minimumSizeHint().height());
}

CellGridView::Geometry CellGridView::geometry() const {
    const QPoint origin = gridOrigin();
    const int left = origin.x(), top = origin.y();
    const int avail = std::min(width() - left - kPad, height() - top - kPad);
    Geometry g;
    if (n_ < 1 || avail < 1) return g;
    g.cell = double(avail) / n_;
    if (g.cell >= 1) g.cell = std::floor(g.cell); // whole pixels per cell: crisp edges
    const double side = g.cell >= 1 ? g.cell * n_ : avail;
    g.grid = QRectF(left, top, side, side);
    return g;
}

QRectF CellGridView::gridRect() const {
    return geometry().grid;
}

QRectF CellGridView::cellRect(int s, int t) const {
    const Geometry g = geometry();
    return {g.grid.left() + t * g.cell, g.grid.top() + s * g.cell, g.cell, g.cell};
}

QPoint CellGridView::cellAt(QPointF pos) const {
    const Geometry g = geometry();
    if (g.cell <= 0 || !g.grid.contains(pos)) return {-1, -1};
    const int t = std::min(n_ - 1, int((pos.x() - g.grid.left()) / g.cell));
    const int s = std::min(n_ - 1, int((pos.y() - g.grid.top()) / g.cell));
    return {t, s};
}

bool CellGridView::event(QEvent* event) {
    if (event->type() != QEvent::ToolTip) return QWidget::event(event);
    const auto* help = static_cast<QHelpEvent*>(event);
    const QPoint cell = cellAt(help->pos());
    if (cell.x() < 0) {
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    QToolTip::showText(
        help->globalPos(),
        tr("query %1, key %2: %3").arg(cell.y()).arg(cell.x()).arg(cellText(cell.y(), cell.x())),
        this);
    return true;
}

QColor CellGridView::flatColor(unsigned char category) const {
    const QBrush brush = cellBrush(category);
    if (brush.style() == Qt::SolidPattern) return brush.color();
    return mask_palette::halfway(brush.color(), mask_palette::blocked(palette()));
}

void CellGridView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Window));
    const Geometry g = geometry();
    if (g.cell <= 0) return;
    if (g.cell >= kMinPatternCell)
        paintCells(painter, g);
    else
        paintImage(painter, g);
    painter.setPen(mask_palette::gridLine(palette()));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(g.grid.adjusted(0, 0, -1, -1));
    paintAxes(painter, g);
    paintOverlay(painter);
}

void CellGridView::paintCells(QPainter& painter, const Geometry& g) const {
    const QColor base = mask_palette::blocked(palette());
    for (int s = 0; s < n_; ++s)
        for (int t = 0; t < n_; ++t) {
            const QRectF r(g.grid.left() + t * g.cell, g.grid.top() + s * g.cell, g.cell, g.cell);
            const QBrush brush = cellBrush(category(s, t));
            if (brush.style() != Qt::SolidPattern) painter.fillRect(r, base);
            painter.fillRect(r, brush);
        }
    painter.setPen(mask_palette::gridLine(palette()));
    for (int i = 1; i < n_; ++i) {
        const double x = g.grid.left() + i * g.cell, y = g.grid.top() + i * g.cell;
        painter.drawLine(QPointF(x, g.grid.top()), QPointF(x, g.grid.bottom()));
        painter.drawLine(QPointF(g.grid.left(), y), QPointF(g.grid.right(), y));
    }
}

void CellGridView::paintImage(QPainter& painter, const Geometry& g) const {
    // One image pixel per cell when cells are whole pixels, else one per screen pixel.
    const int m = g.cell >= 1 ? n_ : std::max(1, int(g.grid.width()));
    std::vector<unsigned char> pixels(std::size_t(m) * m, 0);
    for (int s = 0; s < n_; ++s) {
        unsigned char* row = &pixels[std::size_t((long long)s * m / n_) * m];
        for (int t = 0; t < n_; ++t) {
            unsigned char& p = row[(long long)t * m / n_];
            p = std::max(p, category(s, t));
        }
    }
    unsigned char maxCategory = 0;
    for (unsigned char c : cats_)
        maxCategory = std::max(maxCategory, c);
    std::vector<QRgb> colors(std::size_t(maxCategory) + 1);
    for (std::size_t c = 0; c < colors.size(); ++c)
        colors[c] = flatColor(static_cast<unsigned char>(c)).rgb();
    QImage image(m, m, QImage::Format_RGB32);
    for (int y = 0; y < m; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < m; ++x)
            line[x] = colors[pixels[std::size_t(y) * m + x]];
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(g.grid, image);
}

void CellGridView::paintAxes(QPainter& painter, const Geometry& g) const {
    const QFontMetrics fm = fontMetrics();
    const int labelWidth = fm.horizontalAdvance(QString::number(std::max(n_ - 1, 0)));
    const int step = labelStep(g.cell, std::max(fm.height(), labelWidth + kPad));
    painter.setPen(palette().color(QPalette::WindowText));
    const double rowLabelRight = g.grid.left() - kPad;
    for (int i = 0; i < n_; i += step) {
        const QString text = QString::number(i);
        const double centre = g.grid.top() + (i + 0.5) * g.cell;
        painter.drawText(
            QRectF(rowLabelRight - labelWidth, centre - fm.height() / 2.0, labelWidth, fm.height()),
            Qt::AlignRight | Qt::AlignVCenter, text);
        const double x = g.grid.left() + (i + 0.5) * g.cell;
        painter.drawText(
            QRectF(x - labelWidth, g.grid.top() - fm.height() - 2, 2 * labelWidth, fm.height()),
            Qt::AlignCenter, text);
    }
    painter.drawText(QRectF(g.grid.left(), 0, g.grid.width(), fm.height()), Qt::AlignCenter,
                     tr("key t"));
    painter.save();
    painter.translate(0, g.grid.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-g.grid.height() / 2, 0, g.grid.height(), fm.height()), Qt::AlignCenter,
                     tr("query s"));
    painter.restore();
}

} // namespace attnlab::ui
