// SPDX-License-Identifier: GPL-3.0-or-later
// JsonReader: strict, path-aware accessors.
#include "core/formats/json_reader.h"

#include "core/base/error.h"
#include "core/base/matrix_size.h"

#include <cmath>

namespace attnlab {

void JsonReader::fail(const std::string& message) const {
    throw InputError(path_, message);
}

void JsonReader::expectObject(std::initializer_list<std::string_view> allowed) const {
    if (!node_.is_object()) fail("must be an object");
    for (const auto& [key, value] : node_.items()) {
        bool known = false;
        for (std::string_view a : allowed)
            known = known || a == key;
        if (!known) {
            std::string list;
            for (std::string_view a : allowed)
                list += (list.empty() ? "" : ", ") + std::string(a);
            throw InputError((path_.empty() ? "" : path_ + ".") + key,
                             "unknown key (allowed here: " + list + ")");
        }
    }
}

bool JsonReader::has(std::string_view key) const {
    return node_.is_object() && node_.contains(key);
}

JsonReader JsonReader::at(std::string_view key) const {
    const std::string path = (path_.empty() ? "" : path_ + ".") + std::string(key);
    if (!has(key)) throw InputError(path, "is required");
    return JsonReader(node_.at(std::string(key)), path, directory_);
}

JsonReader JsonReader::at(std::size_t i) const {
    return JsonReader(node_.at(i), path_ + "[" + std::to_string(i) + "]", directory_);
}

std::size_t JsonReader::size() const {
    if (!node_.is_array()) fail("must be an array");
    return node_.size();
}

std::string JsonReader::string() const {
    if (!node_.is_string()) fail("must be a string");
    return node_.get<std::string>();
}

std::filesystem::path JsonReader::filePath() const {
    const std::string name = string();
    if (name.empty()) fail("must name a file");
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(directory_ / name, ec);
    return (ec ? directory_ / name : absolute).lexically_normal();
}

bool JsonReader::boolean() const {
    if (!node_.is_boolean()) fail("must be true or false");
    return node_.get<bool>();
}

long JsonReader::integer(long lo, long hi) const {
    const std::string range =
        "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (node_.is_number_integer()) {
        if (node_.is_number_unsigned() && node_.get<unsigned long long>() > (unsigned long long)hi)
            fail(range);
        const long v = node_.get<long>();
        if (v < lo || v > hi) fail(range);
        return v;
    }
    if (node_.is_number_float()) {
        const double v = node_.get<double>();
        if (std::isfinite(v) && v == std::floor(v) && v >= double(lo) && v <= double(hi))
            return static_cast<long>(v);
    }
    fail(range);
}

Rational JsonReader::number() const {
    try {
        if (node_.is_number_integer()) {
            if (node_.is_number_unsigned())
                return Rational(std::to_string(node_.get<unsigned long long>()));
            return Rational(std::to_string(node_.get<long long>()));
        }
        if (node_.is_number_float()) return decimalRational(node_.get<double>());
        if (node_.is_string()) return parseRational(node_.get<std::string>());
    } catch (const InputError& e) {
        fail(e.what());
    }
    fail("must be a number (or a string \"p/q\")");
}

Matrix<Rational> JsonReader::matrix() const {
    if (!node_.is_array() || node_.empty()) fail("must be a non-empty array of rows");
    const std::size_t rows = node_.size();
    const JsonReader first = at(std::size_t{0});
    if (!first.isArray() || first.node().empty())
        first.fail("must be a non-empty array of numbers");
    const std::size_t cols = first.node().size();
    checkMatrixSize(static_cast<long long>(rows), static_cast<long long>(cols), path_);
    Matrix<Rational> m(rows, cols);
    for (std::size_t i = 0; i < rows; ++i) {
        const JsonReader row = at(i);
        if (!row.isArray()) row.fail("must be an array of numbers");
        if (row.node().size() != cols)
            row.fail("row has " + std::to_string(row.node().size()) + " entries, expected " +
                     std::to_string(cols));
        for (std::size_t j = 0; j < cols; ++j)
            m(i, j) = row.at(j).number();
    }
    return m;
}

BoolMatrix JsonReader::boolMatrix() const {
    if (!node_.is_array() || node_.empty()) fail("must be a non-empty array of rows");
    const std::size_t rows = node_.size();
    const std::size_t cols = at(std::size_t{0}).size();
    checkMatrixSize(static_cast<long long>(rows), static_cast<long long>(cols), path_);
    BoolMatrix m(rows, cols);
    for (std::size_t i = 0; i < rows; ++i) {
        const JsonReader row = at(i);
        if (row.size() != cols)
            row.fail("row has " + std::to_string(row.size()) + " entries, expected " +
                     std::to_string(cols));
        for (std::size_t j = 0; j < cols; ++j) {
            const JsonReader cell = row.at(j);
            if (cell.node().is_boolean()) {
                m(i, j) = cell.boolean();
            } else {
                const long v = cell.integer(0, 1);
                m(i, j) = v == 1;
            }
        }
    }
    return m;
}

} // namespace attnlab
