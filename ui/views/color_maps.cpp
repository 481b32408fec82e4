// SPDX-License-Identifier: GPL-3.0-or-later
// The colour scales, as colour stops that QCustomPlot interpolates linearly.
#include "ui/views/color_maps.h"

namespace attnlab::ui {

namespace {

QCPColorGradient linearGradient(const QMap<double, QColor>& stops) {
    QCPColorGradient g;
    g.setColorStops(stops);
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(255); // odd: the diverging centre (zero) is a level of its own
    return g;
}

} // namespace

QCPColorGradient gradientOf(ColourScale scale) {
    QMap<double, QColor> stops;
    for (const ColourStop& stop : colourStops(scale))
        stops.insert(stop.position, QColor(stop.colour[0], stop.colour[1], stop.colour[2]));
    return linearGradient(stops);
}

QCPColorGradient maskOverlayGradient() {
    return linearGradient({{0.0, QColor(0, 0, 0, 0)}, {1.0, QColor(128, 128, 128, 200)}});
}

} // namespace attnlab::ui
