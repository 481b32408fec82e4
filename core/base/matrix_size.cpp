// SPDX-License-Identifier: GPL-3.0-or-later
// The size check every matrix passes before it is allocated.
#include "core/base/matrix_size.h"

#include "core/base/error.h"

namespace attnlab {

void checkMatrixSize(long long rows, long long cols, const std::string& what) {
    if (rows < 0 || cols < 0 || (cols > 0 && rows > kMaxMatrixEntries / cols))
        throw InputError(what + " of " + std::to_string(rows) + " x " + std::to_string(cols) +
                         " entries is too large (limit " + std::to_string(kMaxMatrixEntries) +
                         " entries)");
}

} // namespace attnlab
