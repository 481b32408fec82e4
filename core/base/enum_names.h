// SPDX-License-Identifier: GPL-3.0-or-later
// Enums written as words (precisions, backends, device kinds): one table per enum gives both
// directions, so a name and its parsing cannot drift apart.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace attnlab {

template <class Enum>
struct EnumName {
    Enum value;
    std::string_view name;
};

/// The name of `value` in `table` ("?" when the table lacks it).
template <class Enum>
std::string_view nameOf(std::span<const EnumName<Enum>> table, Enum value) {
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return "?";
}

/// The value called `name` in `table`, or nullopt.
template <class Enum>
std::optional<Enum> valueOf(std::span<const EnumName<Enum>> table, std::string_view name) {
    for (const auto& entry : table)
        if (entry.name == name) return entry.value;
    return std::nullopt;
}

} // namespace attnlab
