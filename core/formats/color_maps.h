// SPDX-License-Identifier: GPL-3.0-or-later
// The colour maps heatmaps are drawn in, one table for the PNG writer and the explorer: viridis
// (sequential, perceptually uniform, colour-blind safe) and a blue–grey–orange diverging scale for
// values centred on zero, each as colour stops interpolated linearly in RGB, and the value range
// a matrix is mapped onto.
#pragma once

#include <Eigen/Dense>

#include <array>
#include <cstdint>
#include <span>

namespace attnlab {

enum class ColourScale {
    Sequential, ///< viridis from the smallest value (dark blue) to the largest (yellow)
    Diverging   ///< blue (negative), light grey (zero), orange (positive)
};

using Rgb = std::array<std::uint8_t, 3>;

/// A colour at a position in [0, 1] of a scale.
struct ColourStop {
    double position;
    Rgb colour;
};

/// The scale's stops in increasing position, from 0 to 1.
std::span<const ColourStop> colourStops(ColourScale scale);

/// The colour of the scale at t in [0, 1] (clamped; not a number reads as 0), interpolated
/// linearly between the stops and rounded to 8 bits.
Rgb colourAt(ColourScale scale, double t);

/// The values at the two ends of a scale.
struct ValueRange {
    double lo, hi;
};

/// The range `values` are drawn over: smallest to largest for the sequential scale, symmetric
/// around zero (±largest |value|) for the diverging one. A range of a single value is widened
/// (by ±0.5, or to ±1 around zero) so that the value sits at the scale's middle. `values` is
/// not empty.
ValueRange colourRange(ColourScale scale, const Eigen::MatrixXd& values);

/// The one range two maps share (an original and its transformed side): the union of their
/// values' `colourRange`, so that equal colours mean equal values across both. An empty matrix
/// adds nothing; not both empty.
ValueRange sharedColourRange(ColourScale scale, const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

/// `values` with every entry of |value| <= tolerance set to 0: what a difference map draws, so
/// that rounding within a check's tolerance shows as the diverging scale's neutral centre.
Eigen::MatrixXd neutralWithin(const Eigen::MatrixXd& values, double tolerance);

/// Whether text on a cell of this colour reads better dark (true) or light (false), by the
/// colour's relative luminance.
bool darkTextOn(Rgb background);

} // namespace attnlab
