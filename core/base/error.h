// SPDX-License-Identifier: GPL-3.0-or-later
// The one exception type for bad input: a message that names what is wrong and, when the
// input came from a file, the JSON path of the offending value.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace attnlab {

/// Bad input or an impossible request. what() is the full, user-facing message, with every
/// control character but newline and tab written as \xNN: a message quotes what the user gave,
/// and a NUL in it would cut the message short, an escape sequence reach the terminal.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(printable(message)) {}
    /// "path: message" (path is a JSON path such as `layers[0].mask.radius`).
    InputError(const std::string& path, const std::string& message)
        : InputError(path.empty() ? message : path + ": " + message) {}

private:
    static std::string printable(const std::string& text) {
        std::string out;
        out.reserve(text.size());
        for (const unsigned char c : text) {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
                char escaped[5];
                std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
                out += escaped;
            } else {
                out += char(c);
            }
        }
        return out;
    }
};

} // namespace attnlab
