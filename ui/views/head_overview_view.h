// SPDX-License-Identifier: GPL-3.0-or-later
// Every layer and head at a glance: a grid of small attention maps (layers down, heads across)
// painted from the thumbnails the worker pooled (core/explore/head_overview.h), each in its own
// colour range as the main views are. Clicking one selects that layer and head; the selected one
// is outlined.
#pragma once

#include "core/explore/head_overview.h"

#include <QImage>
#include <QWidget>

#include <memory>
#include <vector>

namespace attnlab::ui {

class HeadOverviewView : public QWidget {
    Q_OBJECT
public:
    explicit HeadOverviewView(QWidget* parent = nullptr);

    /// Draws its thumbnails (null: none).
    void setOverview(std::shared_ptr<const HeadOverview> overview);
    /// Outlines this layer and head.
    void setCurrent(int layer, int head);
    int layers() const;
    int heads() const;
    /// Where the thumbnail of (layer, head) is drawn (empty when there is none).
    QRect thumbnailRect(int layer, int head) const;

signals:
    void headSelected(int layer, int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    /// Side of one thumbnail in pixels, and the grid's top-left corner.
    int cellSize() const;
    QPoint origin() const;
    /// The (layer, head) under `pos`, or (-1, -1).
    std::pair<int, int> headAt(QPoint pos) const;

    std::shared_ptr<const HeadOverview> overview_;
    std::vector<std::vector<QImage>> images_; // [layer][head]
    int layer_ = 0, head_ = 0;
};

} // namespace attnlab::ui
