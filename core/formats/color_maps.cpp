// SPDX-License-Identifier: GPL-3.0-or-later
// The colour stops of viridis and the diverging scale, and their interpolation.
#include "core/formats/color_maps.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// Viridis, sampled from its published 256-entry table at 9 stops.
constexpr std::array<ColourStop, 9> kViridis = {{{0.000, {68, 1, 84}},
                                                 {0.125, {71, 44, 122}},
                                                 {0.250, {59, 81, 139}},
                                                 {0.375, {44, 113, 142}},
                                                 {0.500, {33, 144, 141}},
                                                 {0.625, {39, 173, 129}},
                                                 {0.750, {92, 200, 99}},
                                                 {0.875, {170, 220, 50}},
                                                 {1.000, {253, 231, 37}}}};

// Endpoints and midpoints of ColorBrewer's PuOr-like blue/orange pair, safe for the common
// colour-vision deficiencies; the centre is a light grey so zero reads as "nothing".
constexpr std::array<ColourStop, 5> kDiverging = {{{0.00, {33, 102, 172}},
                                                   {0.25, {103, 169, 207}},
                                                   {0.50, {242, 242, 242}},
                                                   {0.75, {244, 165, 96}},
                                                   {1.00, {179, 88, 6}}}};

} // namespace

std::span<const ColourStop> colourStops(ColourScale scale) {
    if (scale == ColourScale::Sequential) return kViridis;
    return kDiverging;
}

Rgb colourAt(ColourScale scale, double t) {
    const std::span<const ColourStop> stops = colourStops(scale);
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
    std::size_t i = 0;
    while (i + 2 < stops.size() && t > stops[i + 1].position)
        ++i;
    const ColourStop &from = stops[i], &to = stops[i + 1];
    const double f = (t - from.position) / (to.position - from.position);
    Rgb rgb{};
    for (std::size_t c = 0; c < rgb.size(); ++c)
        rgb[c] =
            static_cast<std::uint8_t>(from.colour[c] + f * (to.colour[c] - from.colour[c]) + 0.5);
    return rgb;
}

ValueRange colourRange(ColourScale scale, const Eigen::MatrixXd& values) {
    const double lo = values.minCoeff(), hi = values.maxCoeff();
    if (scale == ColourScale::Diverging) {
        const double m = std::max(std::abs(lo), std::abs(hi));
        return m > 0 ? ValueRange{-m, m} : ValueRange{-1, 1};
    }
    return hi > lo ? ValueRange{lo, hi} : ValueRange{lo - 0.5, lo + 0.5};
}

ValueRange sharedColourRange(ColourScale scale, const Eigen::MatrixXd& a,
                             const Eigen::MatrixXd& b) {
    if (a.size() == 0) return colourRange(scale, b);
    if (b.size() == 0) return colourRange(scale, a);
    Eigen::MatrixXd ends(1, 2);
    ends << std::min(a.minCoeff(), b.minCoeff()), std::max(a.maxCoeff(), b.maxCoeff());
    return colourRange(scale, ends);
}

Eigen::MatrixXd neutralWithin(const Eigen::MatrixXd& values, double tolerance) {
    return (values.array().abs() <= tolerance).select(0.0, values);
}

bool darkTextOn(Rgb background) {
    // Relative luminance of sRGB (linearised channels, Rec. 709 weights); dark text above the
    // luminance where black and white text have equal contrast (about 0.18).
    const auto linear = [](std::uint8_t c) {
        const double s = c / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    const double y = 0.2126 * linear(background[0]) + 0.7152 * linear(background[1]) +
                     0.0722 * linear(background[2]);
    return y > 0.179;
}

} // namespace attnlab
