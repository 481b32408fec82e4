// SPDX-License-Identifier: GPL-3.0-or-later
// Reading and writing .npy files: the header (magic, version, dictionary), the entries of every
// supported dtype as doubles, and their reading as numbers or as a mask.
#include "core/formats/npy.h"

#include "core/formats/npy_header.h"

#include "core/base/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <type_traits>
#include <vector>

namespace attnlab {

namespace {

constexpr long long kMaxEntries = 1LL << 26;
// The largest file read: the largest array of 8-byte entries and a generous header.
constexpr std::uintmax_t kMaxFileBytes = kMaxEntries * 8 + (1 << 20);

// ---------- writing ----------

std::string npyFileBytes(const std::string& descr, Eigen::Index rows, Eigen::Index cols,
                         const char* data, std::size_t dataBytes) {
    std::string out = npyHeaderBytes(descr, {rows, cols});
    out.append(data, dataBytes);
    return out;
}

void writeAtomically(const std::filesystem::path& path, const std::string& bytes) {
    std::filesystem::path temp = path;
    temp += ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << bytes;
        if (!out) throw InputError(path.string() + ": cannot write the file");
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) throw InputError(path.string() + ": cannot write the file");
}

// ---------- the entries ----------

// An entry as a double, which holds it exactly: every integer up to 2^53 in magnitude, and a bool's
// byte only as 0 or 1; anything else is refused rather than rounded (an exact scenario's weights
// are read from these files as they are).
template <class T>
double load(const unsigned char* raw) {
    T value;
    std::memcpy(&value, raw, sizeof value);
    if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
        constexpr T most = T(1) << 53;
        if (value > most || (std::is_signed_v<T> && value < -most))
            throw InputError(std::to_string(value) +
                             " is an integer beyond 2^53, which a float64 cannot hold exactly");
    }
    return static_cast<double>(value);
}

double entryValue(const NpyLayout& layout, const char* p) {
    unsigned char raw[8];
    std::memcpy(raw, p, std::size_t(layout.itemSize));
    if (layout.bigEndian) std::reverse(raw, raw + layout.itemSize); // this machine: little
    const bool isSigned = layout.kind == 'i';
    switch (layout.itemSize) {
    case 1:
        if (layout.kind == 'b' && raw[0] > 1)
            throw InputError("a bool holds the byte " + std::to_string(raw[0]) +
                             " (0 or 1 expected)");
        return isSigned ? load<std::int8_t>(raw) : load<std::uint8_t>(raw);
    case 2:
        if (layout.kind == 'f') {
            std::uint16_t bits;
            std::memcpy(&bits, raw, 2);
            return halfToDouble(bits);
        }
        return isSigned ? load<std::int16_t>(raw) : load<std::uint16_t>(raw);
    case 4:
        if (layout.kind == 'f') return load<float>(raw);
        return isSigned ? load<std::int32_t>(raw) : load<std::uint32_t>(raw);
    default:
        if (layout.kind == 'f') return load<double>(raw);
        return isSigned ? load<std::int64_t>(raw) : load<std::uint64_t>(raw);
    }
}

std::string position(Eigen::Index i, Eigen::Index j) {
    return "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
}

// The entries as a rows x cols matrix, whatever the order and byte order of the file.
Eigen::MatrixXd readEntries(const std::string& bytes, const NpyLayout& layout, long long rows,
                            long long cols) {
    const auto entries = static_cast<std::size_t>(rows * cols);
    const std::size_t need = entries * std::size_t(layout.itemSize);
    if (bytes.size() < layout.dataOffset + need) throw InputError(".npy: the data is truncated");
    if (bytes.size() > layout.dataOffset + need)
        throw InputError(".npy: " + std::to_string(bytes.size() - layout.dataOffset - need) +
                         " bytes after the data of shape " + npyShapeText(layout.shape) +
                         ": the header does not describe the data");
    Eigen::MatrixXd m(rows, cols);
    const char* p = bytes.data() + layout.dataOffset;
    for (std::size_t k = 0; k < entries; ++k, p += layout.itemSize) {
        const auto i = static_cast<long long>(k);
        const long long row = layout.fortranOrder ? i % rows : i / cols,
                        col = layout.fortranOrder ? i / rows : i % cols;
        try {
            m(row, col) = entryValue(layout, p);
        } catch (const InputError& e) {
            throw InputError(".npy: entry " + position(row, col) + ": " + e.what());
        }
    }
    return m;
}

std::string numberText(double v) {
    if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<long long>(v));
    std::ostringstream out;
    out << v;
    return out.str();
}

// ---------- masks ----------

// -inf, or the most negative value of the float type (torch.finfo(dtype).min, what transformers
// fills blocked entries of an additive mask with).
bool blocksInAdditiveMask(double v, int itemSize) {
    const double lowest = itemSize == 4 ? double(std::numeric_limits<float>::lowest())
                                        : std::numeric_limits<double>::lowest();
    return v == -std::numeric_limits<double>::infinity() || v == lowest;
}

// Rows and columns of a mask: 2-D, or more with every leading size 1.
std::pair<long long, long long> maskShape(const std::vector<long long>& shape) {
    const bool leadingOnes =
        std::all_of(shape.begin(), shape.end() - std::min<std::size_t>(2, shape.size()),
                    [](long long n) { return n == 1; });
    if (shape.size() < 2 || !leadingOnes)
        throw InputError(".npy: a mask must be 2-D (queries x keys) or have leading sizes of 1, "
                         "got shape " +
                         npyShapeText(shape));
    return {shape[shape.size() - 2], shape.back()};
}

BoolMatrix additiveMask(const Eigen::MatrixXd& m, int itemSize) {
    BoolMatrix mask(m.rows(), m.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const double v = m(i, j);
            if (v != 0 && !blocksInAdditiveMask(v, itemSize))
                throw InputError(".npy mask: entry " + position(i, j) + " is " + numberText(v) +
                                 "; an additive float mask holds only 0 (attend) and -inf "
                                 "(blocked)");
            mask(i, j) = v == 0;
        }
    return mask;
}

BoolMatrix zeroOneMask(const Eigen::MatrixXd& m) {
    BoolMatrix mask(m.rows(), m.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const double v = m(i, j);
            if (v != 0 && v != 1)
                throw InputError(".npy mask: entry " + position(i, j) + " is " + numberText(v) +
                                 "; a mask holds 0/1 or false/true (1: the query may attend to "
                                 "the key), or 0/-inf as an additive float mask");
            mask(i, j) = v == 1;
        }
    return mask;
}

template <class Parse>
auto readFileWith(const std::filesystem::path& path, Parse parse) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw InputError(
            path.string() + ": " +
            (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path.string() + ": cannot read the file");
    if (size > kMaxFileBytes)
        throw InputError(path.string() + ": the file is too large (" + std::to_string(size) +
                         " bytes)");
    std::ifstream in(path, std::ios::binary);
    std::string bytes(size, '\0');
    in.read(bytes.data(), std::streamsize(size));
    if (!in || std::uintmax_t(in.gcount()) != size)
        throw InputError(path.string() + ": cannot read the file");
    try {
        return parse(bytes);
    } catch (const InputError& e) {
        throw InputError(path.string() + ": " + e.what());
    }
}

} // namespace

std::string npyBytes(const Eigen::MatrixXd& m) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rowMajor = m;
    return npyFileBytes("<f8", m.rows(), m.cols(), reinterpret_cast<const char*>(rowMajor.data()),
                        static_cast<std::size_t>(rowMajor.size()) * sizeof(double));
}

std::string npyMaskBytes(const BoolMatrix& mask) {
    std::string data;
    data.reserve(static_cast<std::size_t>(mask.size()));
    for (Eigen::Index i = 0; i < mask.rows(); ++i)
        for (Eigen::Index j = 0; j < mask.cols(); ++j)
            data += char(mask(i, j) ? 1 : 0);
    return npyFileBytes("|b1", mask.rows(), mask.cols(), data.data(), data.size());
}

void writeNpy(const std::filesystem::path& path, const Eigen::MatrixXd& m) {
    writeAtomically(path, npyBytes(m));
}

void writeNpyMask(const std::filesystem::path& path, const BoolMatrix& mask) {
    writeAtomically(path, npyMaskBytes(mask));
}

Eigen::MatrixXd parseNpy(const std::string& bytes) {
    const NpyLayout layout = readNpyLayout(bytes, kMaxEntries);
    if (layout.shape.empty() || layout.shape.size() > 2)
        throw InputError(".npy: the shape must be 1-D or 2-D, got " + npyShapeText(layout.shape));
    const long long rows = layout.shape[0];
    const long long cols = layout.shape.size() == 2 ? layout.shape[1] : 1;
    const Eigen::MatrixXd m = readEntries(bytes, layout, rows, cols);
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            if (!std::isfinite(m(i, j)))
                throw InputError(".npy: entry " + position(i, j) + " is not finite");
    return m;
}

BoolMatrix parseNpyMask(const std::string& bytes) {
    const NpyLayout layout = readNpyLayout(bytes, kMaxEntries);
    const auto [rows, cols] = maskShape(layout.shape);
    const Eigen::MatrixXd m = readEntries(bytes, layout, rows, cols);
    if (layout.kind != 'f') return zeroOneMask(m);
    const bool additive = std::any_of(m.data(), m.data() + m.size(), [&](double v) {
        return blocksInAdditiveMask(v, layout.itemSize);
    });
    if (additive) return additiveMask(m, layout.itemSize);
    if ((m.array() == 0).all())
        throw InputError(".npy mask: every entry is 0.0, which is ambiguous: as a 0/1 mask it "
                         "blocks everything, as an additive mask it blocks nothing; save it as "
                         "bool");
    return zeroOneMask(m);
}

Eigen::MatrixXd readNpy(const std::filesystem::path& path) {
    return readFileWith(path, parseNpy);
}

BoolMatrix readNpyMask(const std::filesystem::path& path) {
    return readFileWith(path, parseNpyMask);
}

} // namespace attnlab
