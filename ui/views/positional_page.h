// SPDX-License-Identifier: GPL-3.0-or-later
// The views panel's Positions page: the positional term of the shown head on its own (ALiBi's
// bias, RoPE's angles, an absolute table) beside a plot of one query row's scores against the
// offset t − s of each key, with every other row drawn faintly behind it. Under a relative
// method the rows fall on one curve; under an absolute one they do not.
#pragma once

#include "core/explore/side_by_side.h"

#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace attnlab::ui {

class HeatmapView;

class PositionalPage : public QWidget {
    Q_OBJECT
public:
    explicit PositionalPage(QWidget* parent = nullptr);

    /// Shows layer `layer`, head `head` of `sides`: its positional term and its original
    /// scores (null clears).
    void show(const attnlab::SideBySide* sides, std::size_t layer, int head,
              const attnlab::ViewMatrix& scores);

    HeatmapView* term() const { return term_; }
    QCustomPlot* curves() const { return curves_; }
    QSpinBox* rowBox() const { return row_; }
    QLabel* explanation() const { return explanation_; }

private:
    void drawCurves();

    HeatmapView* term_;
    QCustomPlot* curves_;
    QSpinBox* row_;
    QCheckBox* allRows_;
    QLabel* explanation_;
    attnlab::ViewMatrix scores_;
    attnlab::BoolMatrix mask_;
};

} // namespace attnlab::ui
