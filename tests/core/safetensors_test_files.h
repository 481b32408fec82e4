// SPDX-License-Identifier: GPL-3.0-or-later
// Test support for the checkpoint readers: .safetensors files written byte by byte (well-formed
// or as given), files on disk, and the InputError a reader must throw.
#pragma once

#include "core/formats/safetensors.h"
#include "test_support.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace attnlab::test {

struct TensorBytes {
    std::string name;
    std::string dtype;
    std::vector<long long> shape;
    std::string data;
};

template <class T>
inline std::string bytesOf(const std::vector<T>& values) {
    std::string out(values.size() * sizeof(T), '\0');
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

/// A .safetensors file from a header's JSON text and the data area, as given.
inline std::string rawFile(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    const std::uint64_t length = header.size();
    std::memcpy(out.data(), &length, 8);
    return out + header + data;
}

/// A well-formed .safetensors file: the tensors one after another in the data area.
inline std::string safetensorsFile(const std::vector<TensorBytes>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    header["__metadata__"] = {{"format", "pt"}};
    std::string data;
    for (const TensorBytes& t : tensors) {
        header[t.name] = {{"dtype", t.dtype},
                          {"shape", t.shape},
                          {"data_offsets", {data.size(), data.size() + t.data.size()}}};
        data += t.data;
    }
    return rawFile(header.dump(), data);
}

inline void writeFile(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

inline SafetensorsFile fromBytes(const std::string& bytes) {
    return SafetensorsFile::fromBytes(bytes, "test.safetensors");
}

/// The message of the InputError `f` throws must contain each of `parts`.
template <class F>
void expectError(F&& f, std::initializer_list<const char*> parts) {
    const QString message = inputErrorOf(std::forward<F>(f));
    QVERIFY2(!message.isNull(), "no InputError");
    for (const char* part : parts)
        QVERIFY2(message.contains(QString::fromUtf8(part)), qPrintable(message));
}

} // namespace attnlab::test
