// SPDX-License-Identifier: GPL-3.0-or-later
// Strict reading of a JSON document: each accessor knows its JSON path, refuses unknown keys,
// wrong types, non-finite numbers and oversized arrays, and throws InputError naming the path.
// A document read from a file knows the file's directory, which relative file names in it
// (a mask's or a matrix's .npy) are relative to.
#pragma once

#include "core/base/scalar.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace attnlab {

class JsonReader {
public:
    /// `directory`: what relative file names are relative to (empty: the working directory).
    JsonReader(const nlohmann::json& node, std::string path, std::filesystem::path directory = {})
        : node_(node), path_(std::move(path)), directory_(std::move(directory)) {}

    const nlohmann::json& node() const { return node_; }
    const std::string& path() const { return path_; }

    /// Requires an object whose keys are all in `allowed`.
    void expectObject(std::initializer_list<std::string_view> allowed) const;
    bool has(std::string_view key) const;
    /// The member `key`; throws "path.key: is required" when absent.
    JsonReader at(std::string_view key) const;
    /// The element `i` of an array.
    JsonReader at(std::size_t i) const;
    std::size_t size() const; // array length; requires an array

    bool isString() const { return node_.is_string(); }
    bool isObject() const { return node_.is_object(); }
    bool isArray() const { return node_.is_array(); }

    std::string string() const;
    bool boolean() const;
    /// An integer within [lo, hi].
    long integer(long lo, long hi) const;
    /// A finite number, or a string "p/q" / decimal; exact.
    Rational number() const;
    /// A rectangular non-empty array of rows of numbers (each row the same length).
    Matrix<Rational> matrix() const;
    /// A rectangular array of rows of 0/1 or booleans.
    BoolMatrix boolMatrix() const;
    /// A non-empty string naming a file, as an absolute path (a relative one is relative to the
    /// document's directory).
    std::filesystem::path filePath() const;

    /// Throws InputError at this path.
    [[noreturn]] void fail(const std::string& message) const;

private:
    const nlohmann::json& node_;
    std::string path_;
    std::filesystem::path directory_;
};

} // namespace attnlab
