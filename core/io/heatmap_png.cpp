// PNG encoding (uncompressed deflate) and the viridis heatmap.
#include "core/io/heatmap_png.h"

#include "core/base/error.h"
#include "core/io/color_maps.h"

#include <algorithm>
#include <fstream>

namespace attnlab {

namespace {

std::uint32_t crc32(const std::string& bytes) {
    std::uint32_t crc = 0xffffffffu;
    for (unsigned char c : bytes) {
        crc ^= c;
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xffffffffu;
}

void putBigEndian(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
        out += char((v >> shift) & 0xff);
}

void putChunk(std::string& out, const char* type, const std::string& data) {
    putBigEndian(out, static_cast<std::uint32_t>(data.size()));
    const std::string body = std::string(type, 4) + data;
    out += body;
    putBigEndian(out, crc32(body));
}

// A zlib stream of stored (uncompressed) deflate blocks.
std::string zlibStored(const std::string& raw) {
    std::string out = "\x78\x01";
    std::uint32_t a = 1, b = 0;
    for (unsigned char c : raw) {
        a = (a + c) % 65521;
        b = (b + a) % 65521;
    }
    std::size_t pos = 0;
    do {
        const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
        out += char(pos + len == raw.size() ? 1 : 0);
        out += char(len & 0xff);
        out += char(len >> 8);
        out += char(~len & 0xff);
        out += char((~len >> 8) & 0xff);
        out.append(raw, pos, len);
        pos += len;
    } while (pos < raw.size());
    putBigEndian(out, (b << 16) | a);
    return out;
}

} // namespace

std::string pngBytes(int width, int height, const std::vector<std::uint8_t>& rgb) {
    std::string raw;
    raw.reserve(std::size_t(height) * (std::size_t(width) * 3 + 1));
    for (int y = 0; y < height; ++y) {
        raw += '\0'; // filter: none
        raw.append(reinterpret_cast<const char*>(rgb.data()) + std::size_t(y) * width * 3,
                   std::size_t(width) * 3);
    }
    std::string header;
    putBigEndian(header, std::uint32_t(width));
    putBigEndian(header, std::uint32_t(height));
    header.append("\x08\x02\x00\x00\x00", 5); // 8-bit RGB, no interlace
    std::string png = "\x89PNG\r\n\x1a\n";
    putChunk(png, "IHDR", header);
    putChunk(png, "IDAT", zlibStored(raw));
    putChunk(png, "IEND", "");
    return png;
}

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
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << pngBytes(int(width), int(height), rgb);
    if (!out) throw InputError(path.string() + ": cannot write the file");
}

} // namespace attnlab
