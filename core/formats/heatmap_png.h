// SPDX-License-Identifier: GPL-3.0-or-later
// Heatmap images without a GUI: a matrix drawn as crisp cells in the viridis colour map
// (core/formats/color_maps.h) and written as a PNG through libpng, for `attnlab-cli run --out`.
#pragma once

#include <Eigen/Dense>

#include <filesystem>

namespace attnlab {

/// Draws `m` with each entry a `cell` x `cell` square, min → dark blue, max → yellow, and writes
/// it to `path` (8-bit RGB, compressed). Throws InputError when the file cannot be written or
/// the image would be huge.
void writeHeatmapPng(const std::filesystem::path& path, const Eigen::MatrixXd& m, int cell = 16);

} // namespace attnlab
