// Reading and writing .npy files.
#include "core/io/npy.h"

#include "core/base/error.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>

namespace attnlab {

std::string npyBytes(const Eigen::MatrixXd& m) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                         std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "), }";
    const std::size_t preamble = 10;
    header.append(64 - (preamble + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(1);
    out += char(0);
    const auto len = static_cast<std::uint16_t>(header.size());
    out += char(len & 0xff);
    out += char(len >> 8);
    out += header;
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rowMajor = m;
    out.append(reinterpret_cast<const char*>(rowMajor.data()),
               static_cast<std::size_t>(rowMajor.size()) * sizeof(double));
    return out;
}

void writeNpy(const std::filesystem::path& path, const Eigen::MatrixXd& m) {
    std::filesystem::path temp = path;
    temp += ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << npyBytes(m);
        if (!out) throw InputError(path.string() + ": cannot write the file");
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) throw InputError(path.string() + ": cannot write the file");
}

Eigen::MatrixXd parseNpy(const std::string& bytes) {
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
    if (bytes.size() < offset + headerLen) throw InputError(".npy header is truncated");
    const std::string header = bytes.substr(offset, headerLen);
    std::smatch match;
    if (!std::regex_search(header, match, std::regex("'descr':\\s*'([<>|=]?)([fi])([48])'")))
        throw InputError(".npy: only float64, float32, int64 and int32 arrays are supported");
    if (match[1] == ">") throw InputError(".npy: big-endian data is not supported");
    const char type = match[2].str()[0];
    const int size = match[3].str()[0] - '0';
    if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
        throw InputError(".npy: Fortran-ordered arrays are not supported");
    if (!std::regex_search(header, match, std::regex("'shape':\\s*\\((\\d*),?\\s*(\\d*),?\\s*\\)")))
        throw InputError(".npy: the shape must be 1-D or 2-D");
    if (match[1].length() > 12 || match[2].length() > 12)
        throw InputError(".npy: shape " + match[1].str() + " x " + match[2].str() +
                         " is too large");
    const long long rows = match[1].str().empty() ? 1 : std::stoll(match[1].str());
    const long long cols = match[2].str().empty() ? 1 : std::stoll(match[2].str());
    if (rows < 1 || cols < 1 || rows > (1LL << 26) / cols)
        throw InputError(".npy: shape " + std::to_string(rows) + " x " + std::to_string(cols) +
                         " is empty or too large");
    const std::size_t data = offset + headerLen;
    const std::size_t need = static_cast<std::size_t>(rows * cols) * static_cast<std::size_t>(size);
    if (bytes.size() < data + need) throw InputError(".npy: the data is truncated");
    Eigen::MatrixXd m(rows, cols);
    const char* p = bytes.data() + data;
    for (long long i = 0; i < rows * cols; ++i, p += size) {
        double v = 0;
        if (type == 'f' && size == 8)
            std::memcpy(&v, p, 8);
        else if (type == 'f') {
            float f;
            std::memcpy(&f, p, 4);
            v = f;
        } else if (size == 8) {
            std::int64_t k;
            std::memcpy(&k, p, 8);
            v = double(k);
        } else {
            std::int32_t k;
            std::memcpy(&k, p, 4);
            v = k;
        }
        if (!std::isfinite(v))
            throw InputError(".npy: entry (" + std::to_string(i / cols) + ", " +
                             std::to_string(i % cols) + ") is not finite");
        m(i / cols, i % cols) = v;
    }
    return m;
}

} // namespace attnlab
