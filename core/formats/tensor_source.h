// SPDX-License-Identifier: GPL-3.0-or-later
// Weights kept outside the scenario file (a checkpoint's tensors, memory-mapped by core/formats):
// the spec layer holds them through this interface and reads rows of a tensor converted to float or
// double, so nothing above the formats layer knows the file format.
#pragma once

#include "core/base/scalar.h"

#include <string>
#include <utility>
#include <vector>

namespace attnlab {

class TensorSource {
public:
    virtual ~TensorSource() = default;
    /// Rows and columns of tensor `name` as stored (a 1-D tensor of k entries is 1 x k); throws
    /// InputError naming the tensor and the origin when there is none of that name.
    virtual std::pair<long long, long long> shape(const std::string& name) const = 0;
    /// The given rows of tensor `name` (all rows when `rows` is empty), in that order, converted
    /// to double / float. Throws InputError when a row is out of range or the data cannot be
    /// read. Pages read from a mapped file are released afterwards, so memory follows the
    /// converted matrices, not the file.
    virtual RowMajorMatrix<double> readDouble(const std::string& name,
                                              const std::vector<long long>& rows = {}) const = 0;
    virtual RowMajorMatrix<float> readFloat(const std::string& name,
                                            const std::vector<long long>& rows = {}) const = 0;
    /// Where the tensors come from (a directory or file), for messages.
    virtual std::string origin() const = 0;
};

} // namespace attnlab
