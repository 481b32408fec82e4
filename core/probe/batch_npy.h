// SPDX-License-Identifier: GPL-3.0-or-later
// The probe's arrays on disk: a batch of sequences written as one 3-D .npy file (B, N, D) in
// float32 or float64, and the program's answer (B, M, E) read back in float16, float32 or
// float64, checked entry by entry: the shape (which axis, expected and found), the dtype, NaN and
// infinity (the first position named), and a size limit read from the header before any data.
#pragma once

#include "core/checks/black_box.h"

#include <filesystem>
#include <string>
#include <vector>

namespace attnlab {

/// Writes `batch` (all n x d) to `path` as (B, n, d) in float32 (`single`) or float64.
void writeBatchNpy(const std::filesystem::path& path, const std::vector<Sequence>& batch,
                   bool single);

/// What a program answered.
struct BatchAnswer {
    std::vector<Sequence> outputs; // B matrices of rows x e
    std::string dtype;             // "float16", "float32" or "float64"
    double unitRoundoff = 0;       // of that dtype
};

/// Reads the (B, rows, E) answer at `path`: throws InputError naming the file when it is missing,
/// not a .npy file, of another shape (naming the axis, what was expected and what was found),
/// of an unsupported dtype, holds NaN or infinity (naming sequence, row and column), or declares
/// more than `maxBytes` of data.
BatchAnswer readBatchNpy(const std::filesystem::path& path, long batch, long rows,
                         std::uintmax_t maxBytes);

} // namespace attnlab
