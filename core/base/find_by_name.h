// SPDX-License-Identifier: GPL-3.0-or-later
// Looking an entry of a registry (the backends) up by its name.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

namespace attnlab {

/// The entry of `entries` whose name() is `name`, or nullptr.
template <class Entry>
const Entry* findByName(const std::vector<std::unique_ptr<Entry>>& entries, std::string_view name) {
    for (const auto& entry : entries)
        if (entry->name() == name) return entry.get();
    return nullptr;
}

} // namespace attnlab
