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

/// One range for two matrices drawn on the same scale (the original and transformed maps of a
/// row): colourRange of all their values together. An empty matrix adds nothing; not both empty.
ValueRange sharedColourRange(ColourScale scale, const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

} // namespace attnlab
