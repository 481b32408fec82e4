// NumPy .npy files (format 1.0, little-endian float64, C order): what `run --out` and the GUI's
// matrix export write, and what the token importer reads.
#pragma once

#include <Eigen/Dense>

#include <filesystem>
#include <string>

namespace attnlab {

/// The bytes of a .npy file holding `m` as float64.
std::string npyBytes(const Eigen::MatrixXd& m);
/// Writes `m` to `path` (atomically); throws InputError when the file cannot be written.
void writeNpy(const std::filesystem::path& path, const Eigen::MatrixXd& m);
/// Parses a 1-D or 2-D .npy of float64/float32/int64/int32 into a matrix (1-D: one column);
/// throws InputError naming what is unsupported or malformed.
Eigen::MatrixXd parseNpy(const std::string& bytes);

} // namespace attnlab
