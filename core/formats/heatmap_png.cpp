// SPDX-License-Identifier: GPL-3.0-or-later
// The viridis heatmap, encoded by libpng.
#include "core/formats/heatmap_png.h"

#include "core/base/error.h"
#include "core/formats/color_maps.h"

#include <png.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

namespace attnlab {

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// What libpng said when it gave up; its error callback must not return, so it records the
// message and jumps back to encodeRows (libpng's own protocol, setjmp/longjmp).
struct PngFailure {
    char message[256] = {};
};

void recordPngError(png_structp png, png_const_charp message) {
    auto* failure = static_cast<PngFailure*>(png_get_error_ptr(png));
    std::snprintf(failure->message, sizeof failure->message, "%s", message);
    png_longjmp(png, 1);
}

// Encodes the rows; false when libpng failed. Holds no object with a destructor, so the jump
// skips nothing.
bool encodeRows(png_structp png, png_infop info, std::FILE* file, int width, int height,
                const std::uint8_t* rgb) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_init_io(png, file);
    png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; ++y)
        png_write_row(png, rgb + std::size_t(y) * std::size_t(width) * 3);
    png_write_end(png, nullptr);
    return true;
}

// Writes rows of 8-bit RGB pixels, top to bottom.
void writeRgb(const std::filesystem::path& path, int width, int height,
              const std::vector<std::uint8_t>& rgb) {
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
    if (!file) throw InputError(path.string() + ": cannot write the file");
    PngFailure failure;
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, recordPngError, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    const bool encoded = info && encodeRows(png, info, file.get(), width, height, rgb.data());
    png_destroy_write_struct(&png, &info);
    if (!encoded)
        throw InputError(path.string() + ": PNG encoder: " +
                         (failure.message[0] ? failure.message : "out of memory"));
    if (std::fflush(file.get()) != 0 || std::ferror(file.get()))
        throw InputError(path.string() + ": cannot write the file");
}

} // namespace

void writeHeatmapPng(const std::filesystem::path& path, const Eigen::MatrixXd& m, int cell) {
    const long long width = m.cols() * cell, height = m.rows() * cell;
    if (width < 1 || height < 1 || width * height > (1LL << 26))
        throw InputError(path.string() + ": a " + std::to_string(m.rows()) + " x " +
                         std::to_string(m.cols()) + " heatmap at " + std::to_string(cell) +
                         " px per cell is too large to draw");
    const ValueRange range = colourRange(ColourScale::Sequential, m);
    std::vector<std::uint8_t> rgb(std::size_t(width * height * 3));
    for (long long y = 0; y < height; ++y)
        for (long long x = 0; x < width; ++x) {
            const double v = m(Eigen::Index(y / cell), Eigen::Index(x / cell));
            const Rgb c = colourAt(ColourScale::Sequential, (v - range.lo) / (range.hi - range.lo));
            std::copy(c.begin(), c.end(), rgb.begin() + std::ptrdiff_t((y * width + x) * 3));
        }
    writeRgb(path, int(width), int(height), rgb);
}

} // namespace attnlab
