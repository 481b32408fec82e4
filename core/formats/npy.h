// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy .npy files: float64 matrices (what `run --out` and the GUI's matrix export write, what
// the token importer and `{"npy": ...}` weights read) and attention masks (the `file` mask kind
// and the mask editor's Import/Export).
//
// Reading takes format versions 1.0-3.0, 1-D or 2-D arrays (masks also 4-D with leading 1s, as
// transformers shapes them: batch x heads x queries x keys), C or Fortran order, either byte
// order, and the dtypes bool (|b1), int8-int64, uint8-uint64, float32 and float64.
//
// Mask convention: an entry that is true (or 1) means the query (row) MAY attend to the key
// (column), as in AttnLab's masks and in PyTorch's boolean `attn_mask` of
// scaled_dot_product_attention (nn.MultiheadAttention's boolean masks are the opposite: True
// blocks). PyTorch's and transformers' *additive* float masks are the other kind: added to the
// scores, 0 lets the key take part and -inf (or the dtype's most negative value,
// torch.finfo(dtype).min) blocks it; a float array of 0 and -inf reads as such.
#pragma once

#include "core/base/scalar.h"

#include <Eigen/Dense>

#include <filesystem>
#include <string>

namespace attnlab {

/// The bytes of a .npy file holding `m` as float64.
std::string npyBytes(const Eigen::MatrixXd& m);
/// The bytes of a .npy file holding `mask` as bool (|b1).
std::string npyMaskBytes(const BoolMatrix& mask);
/// Writes `m` to `path` (atomically); throws InputError when the file cannot be written.
void writeNpy(const std::filesystem::path& path, const Eigen::MatrixXd& m);
/// Writes `mask` to `path` as bool (atomically); throws InputError when it cannot be written.
void writeNpyMask(const std::filesystem::path& path, const BoolMatrix& mask);

/// Parses a 1-D or 2-D .npy of finite numbers into a matrix (1-D: one column; bool as 0/1);
/// throws InputError naming what is unsupported or malformed.
Eigen::MatrixXd parseNpy(const std::string& bytes);
/// Parses a .npy mask (true: the query may attend to the key): bool; integers or floats that are
/// all 0/1; or an additive float mask of 0 (attend) and -inf (blocked). Throws InputError for
/// anything else, naming the first entry that is neither (an all-zero float array is refused as
/// ambiguous between a 0/1 mask that blocks everything and an additive one that blocks nothing).
BoolMatrix parseNpyMask(const std::string& bytes);

/// parseNpy of the file at `path`; the message names the file.
Eigen::MatrixXd readNpy(const std::filesystem::path& path);
/// parseNpyMask of the file at `path`; the message names the file.
BoolMatrix readNpyMask(const std::filesystem::path& path);

} // namespace attnlab
