// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-made .npy files for the npy tests: raw bytes, a file from a header dictionary and its
// data, a 2 x 2 file of one dtype, and masks written as rows of 0/1.
#pragma once

#include "core/base/scalar.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace attnlab::test {

template <class T>
inline std::string rawBytes(const std::vector<T>& values) {
    std::string out(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

// A hand-made .npy: magic, version, header length (2 bytes for 1.x, 4 for 2.x/3.x), the header
// dictionary padded to 64 bytes and the data.
inline std::string npyFile(const std::string& dict, const std::string& data, int major = 1) {
    const std::size_t preamble = major == 1 ? 10 : 12;
    std::string header = dict;
    header.append(64 - (preamble + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(major);
    out += char(0);
    const auto len = static_cast<std::uint32_t>(header.size());
    out += char(len & 0xff);
    out += char((len >> 8) & 0xff);
    if (major != 1) {
        out += char((len >> 16) & 0xff);
        out += char((len >> 24) & 0xff);
    }
    return out + header + data;
}

// A 2 x 2 .npy of dtype `descr` holding `values` in C order.
template <class T>
inline std::string npy2x2(const std::string& descr, const std::vector<T>& values) {
    return npyFile("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 2), }",
                   rawBytes<T>(values));
}

// Mask cells from rows of 0/1 separated by spaces: "10 11".
inline BoolMatrix cells(const QString& rows) {
    const QStringList lines = rows.split(' ');
    BoolMatrix m(lines.size(), lines.front().size());
    for (int i = 0; i < lines.size(); ++i)
        for (int j = 0; j < lines[i].size(); ++j)
            m(i, j) = lines[i][j] == '1';
    return m;
}

// The rows of a mask in the form cells() reads.
inline QString rowsOf(const BoolMatrix& m) {
    QStringList lines;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        QString line;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            line += m(i, j) ? '1' : '0';
        lines << line;
    }
    return lines.join(' ');
}

} // namespace attnlab::test
