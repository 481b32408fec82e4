// SPDX-License-Identifier: GPL-3.0-or-later
// Painting the layer x head grid of thumbnails.
#include "ui/views/head_overview_view.h"

#include "core/formats/color_maps.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace attnlab::ui {

namespace {

constexpr int kThumbnailGap = 4; // pixels between thumbnails
constexpr int kLabelPt = 10;     // layer and head numbers

QImage thumbnail(const Eigen::MatrixXd& values) {
    QImage image(int(values.cols()), int(values.rows()), QImage::Format_RGB32);
    if (values.size() == 0) return image;
    const ValueRange range = colourRange(ColourScale::Sequential, values);
    for (Eigen::Index i = 0; i < values.rows(); ++i)
        for (Eigen::Index j = 0; j < values.cols(); ++j) {
            const Rgb c = colourAt(ColourScale::Sequential,
                                   (values(i, j) - range.lo) / (range.hi - range.lo));
            image.setPixel(int(j), int(i), qRgb(c[0], c[1], c[2]));
        }
    return image;
}

} // namespace

HeadOverviewView::HeadOverviewView(QWidget* parent) : QWidget(parent) {
    setMinimumSize(160, 160);
    setFont(QFont(font().family(), kLabelPt));
    setCursor(Qt::PointingHandCursor);
}

void HeadOverviewView::setOverview(std::shared_ptr<const HeadOverview> overview) {
    overview_ = std::move(overview);
    images_.clear();
    if (!overview_) { // none: an empty page
        update();
        return;
    }
    for (const auto& layer : overview_->weights) {
        auto& row = images_.emplace_back();
        for (const Eigen::MatrixXd& head : layer)
            row.push_back(thumbnail(head));
    }
    update();
}

void HeadOverviewView::setCurrent(int layer, int head) {
    layer_ = layer;
    head_ = head;
    update();
}

int HeadOverviewView::layers() const {
    return int(images_.size());
}

int HeadOverviewView::heads() const {
    int most = 0;
    for (const auto& layer : images_)
        most = std::max(most, int(layer.size()));
    return most;
}

QPoint HeadOverviewView::origin() const {
    const QFontMetrics m(font());
    return {m.horizontalAdvance("L00") + 2 * kThumbnailGap, m.height() + kThumbnailGap};
}

int HeadOverviewView::cellSize() const {
    if (layers() == 0 || heads() == 0) return 0;
    const QPoint o = origin();
    const int across = (width() - o.x()) / heads(), down = (height() - o.y()) / layers();
    return std::max(4, std::min(across, down) - kThumbnailGap);
}

QRect HeadOverviewView::thumbnailRect(int layer, int head) const {
    if (layer < 0 || layer >= layers() || head < 0 || head >= int(images_[layer].size())) return {};
    const int s = cellSize();
    const QPoint o = origin();
    return {o.x() + head * (s + kThumbnailGap), o.y() + layer * (s + kThumbnailGap), s, s};
}

std::pair<int, int> HeadOverviewView::headAt(QPoint pos) const {
    for (int l = 0; l < layers(); ++l)
        for (int h = 0; h < int(images_[l].size()); ++h)
            if (thumbnailRect(l, h).contains(pos)) return {l, h};
    return {-1, -1};
}

void HeadOverviewView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    if (images_.empty()) {
        p.drawText(rect(), Qt::AlignCenter, "computing the heads…");
        return;
    }
    const int s = cellSize();
    p.setPen(palette().color(QPalette::WindowText));
    for (int h = 0; h < heads(); ++h) // head numbers above the columns
        p.drawText(
            QRect(origin().x() + h * (s + kThumbnailGap), 0, s, origin().y() - kThumbnailGap / 2),
            Qt::AlignHCenter | Qt::AlignBottom, QString::number(h));
    for (int l = 0; l < layers(); ++l) {
        const QRect first = thumbnailRect(l, 0);
        p.drawText(QRect(0, first.top(), origin().x() - kThumbnailGap, s),
                   Qt::AlignRight | Qt::AlignVCenter, QString("L%1").arg(l));
        for (int h = 0; h < int(images_[l].size()); ++h)
            p.drawImage(thumbnailRect(l, h), images_[l][h]); // unsmoothed: crisp cells
    }
    const QRect current = thumbnailRect(layer_, head_);
    if (!current.isEmpty()) {
        p.setPen(QPen(QColor(230, 0, 60), 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(current.adjusted(-2, -2, 1, 1));
    }
}

void HeadOverviewView::mousePressEvent(QMouseEvent* event) {
    const auto [layer, head] = headAt(event->position().toPoint());
    if (layer < 0) return;
    setCurrent(layer, head);
    emit headSelected(layer, head);
}

bool HeadOverviewView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [layer, head] = headAt(help->pos());
        if (layer >= 0)
            QToolTip::showText(help->globalPos(),
                               QString("layer %1, head %2 — click to show it").arg(layer).arg(head),
                               this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace attnlab::ui
