// SPDX-License-Identifier: GPL-3.0-or-later
// Matrices as text tables: what a spreadsheet puts on the clipboard (tab-separated), CSV files
// (comma or semicolon) and whitespace-separated columns. Every entry is read exactly ("1/3",
// "0.25", "-2e-3"); a ragged row, an empty table or a non-number is refused with its row and
// column.
#pragma once

#include "core/base/scalar.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab {

/// Parses a table; the separator is the first of tab, comma, semicolon found, else whitespace.
/// Blank lines and a header row whose cells are all non-numeric are skipped. Throws InputError
/// naming the row and column (1-based) of the first bad entry.
Matrix<Rational> parseTable(std::string_view text);
/// Reads a CSV file; the message names the file.
Matrix<Rational> loadTableFile(const std::filesystem::path& path);
/// The matrix as CSV with shortest round-trip decimals.
std::string tableText(const Eigen::MatrixXd& m);

} // namespace attnlab
