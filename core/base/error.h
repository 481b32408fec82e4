// The one exception type for bad input: a message that names what is wrong and, when the
// input came from a file, the JSON path of the offending value.
#pragma once

#include <stdexcept>
#include <string>

namespace attnlab {

/// Bad input or an impossible request. what() is the full, user-facing message.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
    /// "path: message" (path is a JSON path such as `layers[0].mask.radius`).
    InputError(const std::string& path, const std::string& message)
        : std::runtime_error(path.empty() ? message : path + ": " + message) {}
};

} // namespace attnlab
