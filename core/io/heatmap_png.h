// Heatmap images without a GUI: a matrix drawn as crisp cells in the viridis colour map
// (core/io/color_maps.h) and encoded as PNG, for `attnlab-cli run --out`.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab {

/// A PNG (8-bit RGB, stored deflate blocks) of width x height pixels, rows top to bottom.
std::string pngBytes(int width, int height, const std::vector<std::uint8_t>& rgb);
/// Draws `m` with each entry a `cell` x `cell` square, min → dark blue, max → yellow, and writes
/// it to `path`. Throws InputError when the file cannot be written or the image would be huge.
void writeHeatmapPng(const std::filesystem::path& path, const Eigen::MatrixXd& m, int cell = 16);

} // namespace attnlab
