// SPDX-License-Identifier: GPL-3.0-or-later
// What every backend shares: finding a device by its index.
#include "core/backend/backend.h"

namespace attnlab {

const Device* Backend::device(int index) const {
    const auto& all = devices();
    return index >= 0 && std::size_t(index) < all.size() ? all[std::size_t(index)].get() : nullptr;
}

} // namespace attnlab
