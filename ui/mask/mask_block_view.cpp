// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing the tiles of a mask.
#include "ui/mask/mask_block_view.h"

#include "ui/mask/cell_grid_view.h"
#include "ui/mask/mask_palette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attnlab::ui {

// The n x n cells, each coloured by the state of the tile it falls in, with tile borders.
class TileGridView : public CellGridView {
public:
    using CellGridView::CellGridView;
    void setTiles(int n, const TileMap& map) {
        tile_ = map.tile;
        std::vector<unsigned char> categories(std::size_t(n) * n);
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t)
                categories[std::size_t(s) * n + t] =
                    static_cast<unsigned char>(map.at(s / tile_, t / tile_));
        setCells(n, std::move(categories));
    }

protected:
    QBrush cellBrush(unsigned char category) const override {
        switch (TileState(category)) {
        case TileState::Empty:
            return mask_palette::blocked(palette());
        case TileState::Partial:
            return QBrush(mask_palette::allowed(palette()), Qt::BDiagPattern);
        case TileState::Full:
            return mask_palette::allowed(palette());
        }
        return {};
    }
    QString cellText(int s, int t) const override {
        const QString states[] = {tr("empty"), tr("partial"), tr("full")};
        return tr("tile (%1, %2) is %3").arg(s / tile_).arg(t / tile_).arg(states[category(s, t)]);
    }
    void paintOverlay(QPainter& painter) override {
        const int n = tokenCount();
        const QRectF grid = gridRect();
        if (n < 1 || grid.width() / n * tile_ < 3) return; // borders would cover the tiles
        painter.setPen(QPen(palette().color(QPalette::WindowText), 1.5));
        for (int i = tile_; i < n; i += tile_) {
            const QRectF r = cellRect(i, i);
            painter.drawLine(QPointF(r.left(), grid.top()), QPointF(r.left(), grid.bottom()));
            painter.drawLine(QPointF(grid.left(), r.top()), QPointF(grid.right(), r.top()));
        }
    }

private:
    int tile_ = 1;
};

MaskBlockView::MaskBlockView(QWidget* parent)
    : QWidget(parent), tile_(new QSpinBox(this)), grid_(new TileGridView(this)),
      summary_(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Tile"), this));
    tile_->setObjectName("tile");
    tile_->setRange(1, 4096);
    tile_->setValue(4);
    tile_->setKeyboardTracking(false);
    tile_->setToolTip(tr("Tile edge of a block-sparse (flash) kernel, in tokens"));
    row->addWidget(tile_);
    row->addStretch();
    layout->addLayout(row);
    // The grid and its legend side by side, each half the width: in the explorer's narrow input
    // column a legend below or beside a fixed grid was clipped.
    auto* body = new QHBoxLayout;
    // An overview: smaller than the paint view below, which needs the height.
    grid_->setMinimumSize(100, 100);
    grid_->setMaximumHeight(grid_->sizeHint().height() * 2 / 3);
    body->addWidget(grid_, 1);
    summary_->setObjectName("tileSummary");
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    body->addWidget(summary_, 1);
    layout->addLayout(body);
    connect(tile_, &QSpinBox::valueChanged, this, &MaskBlockView::refresh);
}

void MaskBlockView::setMask(const BoolMatrix& mask) {
    mask_ = mask;
    refresh();
}

void MaskBlockView::setTile(int tile) {
    tile_->setValue(tile);
}
int MaskBlockView::tile() const {
    return tile_->value();
}

void MaskBlockView::refresh() {
    map_ = classifyTiles(mask_, tile_->value()); // the spin box refuses tile < 1
    grid_->setTiles(static_cast<int>(mask_.rows()), map_);
    const QPalette& p = palette();
    const bool ragged = mask_.rows() % map_.tile != 0;
    summary_->setText(
        tr("%1 %2 of %3×%3%4<br>%5 full<br>%6 partial<br>%7 empty<br>"
           "<b>%8%</b> of tiles skipped<br><b>%9%</b> of entries allowed")
            .arg(map_.tiles())
            .arg(map_.tiles() == 1 ? tr("tile") : tr("tiles"))
            .arg(map_.tile)
            .arg(ragged ? tr(" (the last row and column ragged)") : QString())
            .arg(mask_palette::swatch(mask_palette::allowed(p)) + QString::number(map_.full))
            .arg(mask_palette::swatch(mask_palette::allowed(p), "&#9640;") +
                 QString::number(map_.partial))
            .arg(mask_palette::swatch(p.color(QPalette::WindowText), "&#9633;") +
                 QString::number(map_.empty))
            .arg(100.0 * map_.skippedFraction(), 0, 'f', 1)
            .arg(100.0 * map_.allowedFraction(), 0, 'f', 1));
}

} // namespace attnlab::ui
