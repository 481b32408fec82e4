// The colour scales, as colour stops that QCustomPlot interpolates linearly.
#include "ui/views/color_maps.h"

#include <array>

namespace {

QCPColorGradient fromStops(std::initializer_list<std::pair<double, QColor>> stops) {
    QCPColorGradient g;
    g.clearColorStops();
    for (const auto& [position, colour] : stops)
        g.setColorStopAt(position, colour);
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    return g;
}

} // namespace

QCPColorGradient viridisGradient() {
    return fromStops({{0.000, QColor(68, 1, 84)},
                      {0.125, QColor(71, 44, 122)},
                      {0.250, QColor(59, 81, 139)},
                      {0.375, QColor(44, 113, 142)},
                      {0.500, QColor(33, 144, 141)},
                      {0.625, QColor(39, 173, 129)},
                      {0.750, QColor(92, 200, 99)},
                      {0.875, QColor(170, 220, 50)},
                      {1.000, QColor(253, 231, 37)}});
}

QCPColorGradient divergingGradient() {
    // Endpoints and midpoints of ColorBrewer's PuOr-like blue/orange pair, safe for the common
    // colour-vision deficiencies; the centre is a light grey so zero reads as "nothing".
    return fromStops({{0.00, QColor(33, 102, 172)},
                      {0.25, QColor(103, 169, 207)},
                      {0.50, QColor(242, 242, 242)},
                      {0.75, QColor(244, 165, 96)},
                      {1.00, QColor(179, 88, 6)}});
}

QCPColorGradient maskOverlayGradient() {
    return fromStops({{0.0, QColor(0, 0, 0, 0)}, {1.0, QColor(128, 128, 128, 200)}});
}
