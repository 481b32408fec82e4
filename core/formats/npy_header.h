// SPDX-License-Identifier: GPL-3.0-or-later
// The header of a .npy file: reading it (magic, version 1.0-3.0, the dictionary's dtype, order
// and shape) into a layout, and writing one (version 1.0, padded to 64 bytes). The matrix and
// mask readers (npy.h) and the probe's batches read their data after it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attnlab {

/// What a header says about the data.
struct NpyLayout {
    char kind = 'f'; // 'b' bool, 'i' signed integer, 'u' unsigned integer, 'f' float
    int itemSize = 8;
    bool bigEndian = false;
    bool fortranOrder = false;
    std::vector<long long> shape;
    std::size_t dataOffset = 0; // where the data starts
};

/// Reads the header at the start of `bytes` (the data may follow or not). Throws InputError for
/// a missing magic, an unsupported version or dtype (bool, int8-int64, uint8-uint64, float16,
/// float32 and float64 are supported), a malformed shape, or more than `maxEntries` entries.
NpyLayout readNpyLayout(const std::string& bytes, long long maxEntries);
/// "(2, 3)", "(3,)".
std::string npyShapeText(const std::vector<long long>& shape);
/// A version 1.0 header for C-ordered data of `descr` ("<f4") and `shape`.
std::string npyHeaderBytes(const std::string& descr, const std::vector<long long>& shape);
/// A float16 as a double (exact).
double halfToDouble(unsigned short bits);

} // namespace attnlab
