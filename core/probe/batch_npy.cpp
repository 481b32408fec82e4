// SPDX-License-Identifier: GPL-3.0-or-later
// The probe's 3-D .npy batches (batch_npy.h): written and read a sequence at a time, converted
// by Eigen expressions between the file's C order and the matrices, so that hundreds of MiB pass
// in a fraction of a second.
#include "core/probe/batch_npy.h"

#include "core/base/error.h"
#include "core/formats/npy_header.h"

#include <cmath>
#include <cstring>
#include <fstream>

namespace attnlab {

namespace {

// A float16 entry of the answer as a double.
double halfEntry(const char* p) {
    unsigned short bits;
    std::memcpy(&bits, p, 2);
    return halfToDouble(bits);
}

template <class T>
using RowMajorMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// The error naming the first NaN or infinity of sequence b (in C order).
InputError nonFinite(const std::string& name, long b, const Sequence& out) {
    for (Eigen::Index r = 0; r < out.rows(); ++r)
        for (Eigen::Index j = 0; j < out.cols(); ++j)
            if (!std::isfinite(out(r, j)))
                return InputError(name + ": " + (std::isnan(out(r, j)) ? "NaN" : "an infinity") +
                                  " at sequence " + std::to_string(b) + ", row " +
                                  std::to_string(r) + ", column " + std::to_string(j));
    return InputError(name + ": a value is not finite");
}

std::string dtypeName(const NpyLayout& layout) {
    const char* kinds[] = {"bool", "int", "uint", "float"};
    const int kind = layout.kind == 'b' ? 0 : layout.kind == 'i' ? 1 : layout.kind == 'u' ? 2 : 3;
    return kind == 0 ? "bool" : kinds[kind] + std::to_string(8 * layout.itemSize);
}

} // namespace

void writeBatchNpy(const std::filesystem::path& path, const std::vector<Sequence>& batch,
                   bool single) {
    const Eigen::Index n = batch.empty() ? 0 : batch.front().rows();
    const Eigen::Index d = batch.empty() ? 0 : batch.front().cols();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << npyHeaderBytes(single ? "<f4" : "<f8", {(long long)batch.size(), n, d});
    // Each sequence in C order (row-major), converted in one expression, written at once.
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> f32;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> f64;
    for (const Sequence& x : batch) {
        if (single) {
            f32 = x.cast<float>();
            out.write(reinterpret_cast<const char*>(f32.data()), std::streamsize(f32.size() * 4));
        } else {
            f64 = x;
            out.write(reinterpret_cast<const char*>(f64.data()), std::streamsize(f64.size() * 8));
        }
    }
    if (!out) throw InputError(path.string() + ": cannot write the probe's input");
}

BatchAnswer readBatchNpy(const std::filesystem::path& path, long batch, long rows,
                         std::uintmax_t maxBytes) {
    const std::string name = "the program's output " + path.filename().string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError("the program exited 0 but wrote no output file (" + name + ")");
    std::ifstream in(path, std::ios::binary);
    std::string head(16384, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(in.gcount()));
    NpyLayout layout;
    try {
        layout = readNpyLayout(head, 1LL << 50); // the size is checked against maxBytes below
    } catch (const InputError& e) {
        throw InputError(name + ": " + e.what());
    }
    if (layout.kind != 'f')
        throw InputError(name + ": dtype " + dtypeName(layout) +
                         " is not supported (float16, float32 or float64 are)");
    if (layout.shape.size() != 3)
        throw InputError(name + ": shape " + npyShapeText(layout.shape) +
                         " is not 3-D (expected (" + std::to_string(batch) + ", " +
                         std::to_string(rows) + ", E))");
    const long long found[] = {layout.shape[0], layout.shape[1]};
    const long expected[] = {batch, rows};
    const char* axes[] = {"axis 0 (the sequences of the batch)", "axis 1 (the rows)"};
    for (int a = 0; a < 2; ++a)
        if (found[a] != expected[a])
            throw InputError(name + ": shape " + npyShapeText(layout.shape) + ": " + axes[a] +
                             " is " + std::to_string(found[a]) + ", expected " +
                             std::to_string(expected[a]));
    if (layout.fortranOrder)
        throw InputError(name + ": Fortran order is not supported (write a C-ordered array: "
                                "numpy.ascontiguousarray)");
    if (layout.bigEndian) throw InputError(name + ": big-endian data is not supported");
    const long long e = layout.shape[2];
    const std::uintmax_t dataBytes = std::uintmax_t(batch) * std::uintmax_t(rows) *
                                     std::uintmax_t(e) * std::uintmax_t(layout.itemSize);
    if (dataBytes > maxBytes)
        throw InputError(name + ": shape " + npyShapeText(layout.shape) + " holds " +
                         std::to_string(dataBytes) + " bytes, more than the limit of " +
                         std::to_string(maxBytes));
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size != layout.dataOffset + dataBytes)
        throw InputError(name + ": the file holds " + std::to_string(size) + " bytes, its header " +
                         "describes " + std::to_string(layout.dataOffset + dataBytes));
    in.clear();
    in.seekg(std::streamoff(layout.dataOffset));
    BatchAnswer answer;
    answer.dtype = "float" + std::to_string(8 * layout.itemSize);
    answer.unitRoundoff = layout.itemSize == 2   ? 0x1.0p-11
                          : layout.itemSize == 4 ? 0x1.0p-24
                                                 : 0x1.0p-53;
    std::vector<char> raw(std::size_t(rows * e) * std::size_t(layout.itemSize));
    for (long b = 0; b < batch; ++b) {
        in.read(raw.data(), std::streamsize(raw.size()));
        Sequence out(rows, e);
        if (layout.itemSize == 2) {
            for (long r = 0; r < rows; ++r)
                for (long long j = 0; j < e; ++j)
                    out(r, j) = halfEntry(raw.data() + 2 * (r * e + j));
        } else if (layout.itemSize == 4) {
            out = RowMajorMap<float>(reinterpret_cast<const float*>(raw.data()), rows, e)
                      .cast<double>();
        } else {
            out = RowMajorMap<double>(reinterpret_cast<const double*>(raw.data()), rows, e);
        }
        if (!out.allFinite()) throw nonFinite(name, b, out);
        answer.outputs.push_back(std::move(out));
    }
    if (!in) throw InputError(name + ": the data is truncated");
    return answer;
}

} // namespace attnlab
