// SPDX-License-Identifier: GPL-3.0-or-later
// A square grid of n x n cells (query s down, key t across) drawn crisply: each cell one of a
// few categories with its own brush, token indices on the axes, and for large n an image at
// screen resolution in which a pixel covering many cells shows the most important category
// among them (a larger category value wins, so thin bands stay visible).
#pragma once

#include <QWidget>

#include <vector>

namespace attnlab::ui {

class CellGridView : public QWidget {
    Q_OBJECT
public:
    explicit CellGridView(QWidget* parent = nullptr);
    /// n x n categories, row-major: categories[s * n + t].
    void setCells(int n, std::vector<unsigned char> categories);
    int tokenCount() const { return n_; }
    /// The cell (x = key t, y = query s) under a widget position; (-1, -1) outside the grid.
    QPoint cellAt(QPointF pos) const;
    /// The widget rectangle of cell (s, t).
    QRectF cellRect(int s, int t) const;
    QSize sizeHint() const override { return {320, 320}; }
    QSize minimumSizeHint() const override { return {160, 160}; }
    /// The height that lets the grid fill `width`; a layout asks for it where the size policy
    /// says so (QSizePolicy::setHeightForWidth).
    int heightForWidth(int width) const override;

protected:
    /// The fill of a category when cells are drawn one by one (patterns allowed).
    virtual QBrush cellBrush(unsigned char category) const = 0;
    /// The hover text of cell (s, t), after "query s, key t".
    virtual QString cellText(int s, int t) const = 0;
    /// Drawn after the cells (row markers, tile borders); cellRect() places things.
    virtual void paintOverlay(QPainter& painter) { Q_UNUSED(painter); }
    unsigned char category(int s, int t) const { return cats_[std::size_t(s) * n_ + t]; }
    /// The rectangle the cells occupy.
    QRectF gridRect() const;
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Geometry {
        QRectF grid;     // the cells
        double cell = 0; // edge of one cell in pixels (may be < 1 for large n)
    };
    Geometry geometry() const;
    /// Where the grid may start: right of the query axis, under the key axis.
    QPoint gridOrigin() const;
    void paintCells(QPainter& painter, const Geometry& g) const;
    void paintImage(QPainter& painter, const Geometry& g) const;
    void paintAxes(QPainter& painter, const Geometry& g) const;
    QColor flatColor(unsigned char category) const;

    int n_ = 0;
    std::vector<unsigned char> cats_;
};

} // namespace attnlab::ui
