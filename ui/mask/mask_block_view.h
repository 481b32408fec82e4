// SPDX-License-Identifier: GPL-3.0-or-later
// The block view of a mask: at a chosen tile size, each tile drawn empty (skipped by a tiled
// kernel), partial (hatched) or full, with the sparsity figures. Ragged tiles at the edge are
// drawn at their true size. The classification comes from core (core/spec/mask_tiles.h).
#pragma once

#include "core/spec/mask_tiles.h"

#include <QWidget>

class QLabel;
class QSpinBox;

namespace attnlab::ui {

class TileGridView;

class MaskBlockView : public QWidget {
    Q_OBJECT
public:
    explicit MaskBlockView(QWidget* parent = nullptr);
    /// Shows the tiles of `mask` (square) at the current tile size.
    void setMask(const BoolMatrix& mask);
    void setTile(int tile);
    int tile() const;
    /// The classification on display.
    const TileMap& tileMap() const { return map_; }

private:
    void refresh();

    QSpinBox* tile_;
    TileGridView* grid_;
    QLabel* summary_;
    BoolMatrix mask_;
    TileMap map_;
};

} // namespace attnlab::ui
