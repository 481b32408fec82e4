// SPDX-License-Identifier: GPL-3.0-or-later
// The largest matrix AttnLab allocates, checked before allocation by every reader and builder.
#pragma once

#include <string>

namespace attnlab {

/// Largest number of entries a single matrix may have (refused before allocation beyond it).
inline constexpr long long kMaxMatrixEntries = 1LL << 26;

/// Throws InputError when rows x cols exceeds kMaxMatrixEntries, naming the size.
void checkMatrixSize(long long rows, long long cols, const std::string& what);

} // namespace attnlab
