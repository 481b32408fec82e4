// SPDX-License-Identifier: GPL-3.0-or-later
// UTF-8 as the tokenizers read and write it: strict decoding into code points, the position of
// the first invalid byte, and lossy decoding that replaces each maximal invalid subpart with
// U+FFFD (as Rust's String::from_utf8_lossy does).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::utf8 {

/// Code points and where each starts; offsets has one more entry, the end of the text.
struct CodePoints {
    std::vector<char32_t> chars;
    std::vector<std::size_t> offsets;
};

/// The byte offset of the first byte that does not belong to a valid UTF-8 sequence.
std::optional<std::size_t> firstInvalidByte(std::string_view text);
/// The code points of valid UTF-8 text.
CodePoints decode(std::string_view text);
void append(std::string& out, char32_t c);
/// The bytes as text: each maximal invalid subpart becomes U+FFFD.
std::string lossy(std::string_view bytes);

/// One step of decoding at `at`: a valid sequence of `length` bytes encoding `c`, or an invalid
/// maximal subpart of `length` bytes.
struct Step {
    std::size_t length;
    bool valid;
    char32_t c;
};
Step step(std::string_view text, std::size_t at);

} // namespace attnlab::utf8
