// SPDX-License-Identifier: GPL-3.0-or-later
// Reading and writing the header of a .npy file (npy_header.h).
#include "core/formats/npy_header.h"

#include "core/base/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <regex>
#include <sstream>

namespace attnlab {

namespace {

// The longest header read (numpy's own limit).
constexpr std::size_t kMaxHeaderBytes = 10000;

// The header dictionary's text; sets layout.dataOffset to where the data starts.
std::string headerText(const std::string& bytes, NpyLayout& layout) {
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
        throw InputError("not a .npy file (missing the \\x93NUMPY magic)");
    const int major = static_cast<unsigned char>(bytes[6]);
    std::size_t headerLen = 0, offset = 0;
    if (major == 1) {
        headerLen =
            static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        offset = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw InputError(".npy header is truncated");
        std::uint32_t len = 0;
        std::memcpy(&len, bytes.data() + 8, 4);
        headerLen = len;
        offset = 12;
    } else {
        throw InputError(".npy version " + std::to_string(major) + " is not supported");
    }
    if (headerLen > kMaxHeaderBytes)
        throw InputError(".npy header is longer than " + std::to_string(kMaxHeaderBytes) +
                         " bytes");
    if (bytes.size() < offset + headerLen) throw InputError(".npy header is truncated");
    layout.dataOffset = offset + headerLen;
    return bytes.substr(offset, headerLen);
}

bool validItemSize(char kind, int size) {
    switch (kind) {
    case 'b':
        return size == 1;
    case 'i':
    case 'u':
        return size == 1 || size == 2 || size == 4 || size == 8;
    default: // 'f'
        return size == 2 || size == 4 || size == 8;
    }
}

void readDescr(const std::string& header, NpyLayout& layout) {
    std::smatch match;
    if (!std::regex_search(header, match, std::regex("'descr':\\s*'([^']*)'")))
        throw InputError(".npy: the header has no 'descr' (dtype)");
    const std::string descr = match[1];
    std::smatch parts;
    if (!std::regex_match(descr, parts, std::regex("([<>|=]?)([bfiu])([1248])")) ||
        !validItemSize(parts[2].str()[0], parts[3].str()[0] - '0'))
        throw InputError(".npy: dtype '" + descr +
                         "' is not supported (bool, int8-int64, uint8-uint64, float16, float32 "
                         "and float64 are)");
    layout.bigEndian = parts[1] == ">";
    layout.kind = parts[2].str()[0];
    layout.itemSize = parts[3].str()[0] - '0';
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// The sizes of a shape tuple's text such as "2, 3" or "3,"; throws when it is anything else.
std::vector<long long> shapeSizes(const std::string& tuple, long long maxEntries) {
    std::vector<long long> shape;
    std::stringstream pieces(tuple);
    std::string piece;
    long long entries = 1;
    while (std::getline(pieces, piece, ',')) {
        piece.erase(0, piece.find_first_not_of(' '));
        piece.erase(piece.find_last_not_of(' ') + 1);
        const bool trailingComma = piece.empty() && !shape.empty() && pieces.eof();
        if (trailingComma) break;
        if (piece.empty() || !std::all_of(piece.begin(), piece.end(), isDigit))
            throw InputError(".npy: shape (" + tuple + ") is not a tuple of sizes");
        if (piece.size() > 12) throw InputError(".npy: shape (" + tuple + ") is too large");
        const long long n = std::stoll(piece);
        if (n < 1 || entries > maxEntries / n)
            throw InputError(".npy: shape (" + tuple + ") is empty or too large");
        entries *= n;
        shape.push_back(n);
    }
    return shape;
}

void readShape(const std::string& header, NpyLayout& layout, long long maxEntries) {
    std::smatch match;
    if (!std::regex_search(header, match, std::regex("'shape':\\s*\\(([^)]*)\\)")))
        throw InputError(".npy: the header has no shape (1-D or 2-D needed)");
    layout.shape = shapeSizes(match[1], maxEntries);
}

} // namespace

std::string npyShapeText(const std::vector<long long>& shape) {
    std::string text = "(";
    for (std::size_t k = 0; k < shape.size(); ++k)
        text += (k ? ", " : "") + std::to_string(shape[k]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

NpyLayout readNpyLayout(const std::string& bytes, long long maxEntries) {
    NpyLayout layout;
    const std::string header = headerText(bytes, layout);
    readDescr(header, layout);
    std::smatch order;
    if (!std::regex_search(header, order, std::regex("'fortran_order':\\s*(True|False)\\b")))
        throw InputError(".npy: the header's 'fortran_order' must be True or False");
    layout.fortranOrder = order[1] == "True";
    readShape(header, layout, maxEntries);
    return layout;
}

std::string npyHeaderBytes(const std::string& descr, const std::vector<long long>& shape) {
    std::string header = "{'descr': '" + descr +
                         "', 'fortran_order': False, 'shape': " + npyShapeText(shape) + ", }";
    const std::size_t preamble = 10;
    header.append(64 - (preamble + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(1);
    out += char(0);
    const auto len = static_cast<std::uint16_t>(header.size());
    out += char(len & 0xff);
    out += char(len >> 8);
    return out + header;
}

double halfToDouble(unsigned short bits) {
    const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
    double magnitude = 0;
    if (exponent == 0)
        magnitude = std::ldexp(double(fraction), -24); // subnormal
    else if (exponent == 31)
        magnitude = fraction ? std::numeric_limits<double>::quiet_NaN()
                             : std::numeric_limits<double>::infinity();
    else
        magnitude = std::ldexp(double(fraction | 0x400), exponent - 25);
    return sign ? -magnitude : magnitude;
}

} // namespace attnlab
