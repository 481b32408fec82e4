// SPDX-License-Identifier: GPL-3.0-or-later
// The veil over a heatmap whose picture is out of date while its new one is computed: the map
// dimmed by a translucent cover of the window's colour and the word "computing…" across it, as
// large as the view's width allows (up to its font's size). It takes no mouse events, so the
// tooltips of the cells under it still answer.
#pragma once

#include <QWidget>

namespace attnlab::ui {

class StaleVeil : public QWidget {
    Q_OBJECT
public:
    explicit StaleVeil(QWidget* parent);
    /// The word written across the veil.
    static QString text() { return QStringLiteral("computing…"); }

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace attnlab::ui
