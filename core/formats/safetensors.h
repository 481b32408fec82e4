// SPDX-License-Identifier: GPL-3.0-or-later
// One .safetensors file (8-byte little-endian header length, a JSON header, the tensors' bytes),
// memory-mapped and validated when opened: only the header is read then. Rows of a tensor are
// converted exactly from F16, BF16, F32 or F64 to float or double on request, and the pages they
// came from are released afterwards, so resident memory follows the converted rows.
#pragma once

#include "core/formats/tensor_source.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// The dtypes converted to float and double; Other: a safetensors dtype (BOOL, I8, I64, U8,
/// F8_E4M3, ...) that opens, since checkpoints hold such buffers, but is refused when read.
enum class SafetensorsDtype { F16, BF16, F32, F64, Other };

/// A tensor as the header describes it, checked against the file.
struct SafetensorsTensor {
    SafetensorsDtype dtype = SafetensorsDtype::F32;
    std::string dtypeName = "F32"; // as the header states it
    std::vector<long long> shape;  // as stored (rank 0 to 2 after dropping leading 1s)
    long long rows = 1;            // the matrix view: rank 0 is 1 x 1, a k-vector 1 x k
    long long cols = 1;
    std::uint64_t begin = 0; // byte offsets into the data area, end - begin = rows*cols*size
    std::uint64_t end = 0;
};

/// Half precision (IEEE binary16) and bfloat16 bit patterns as float, exactly (subnormals,
/// signed zeros, infinities and NaN included).
float halfToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

class SafetensorsFile {
public:
    /// Maps `path` read-only and validates its header; throws InputError naming the file and
    /// what is wrong (truncated, header length beyond the file, JSON, a dtype safetensors does
    /// not define, rank, offsets).
    explicit SafetensorsFile(const std::filesystem::path& path);
    /// The same from bytes in memory (tests, fuzzing); `origin` names them in messages.
    static SafetensorsFile fromBytes(std::string bytes, std::string origin);

    SafetensorsFile(SafetensorsFile&&) noexcept;
    SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
    ~SafetensorsFile();

    const std::string& origin() const;
    /// The header's optional "__metadata__" (string to string).
    const std::map<std::string, std::string>& metadata() const;
    /// Tensor names in sorted order.
    std::vector<std::string> names() const;
    bool has(const std::string& name) const;
    /// Throws InputError naming the tensor and the file when there is none of that name.
    const SafetensorsTensor& tensor(const std::string& name) const;

    /// The given rows of tensor `name` (all when `rows` is empty), in that order. Throws
    /// InputError for a row out of range, a dtype other than F16, BF16, F32 and F64, or a NaN
    /// or infinite entry (naming tensor, row and column), and in readFloat for an F64 entry
    /// beyond float's range.
    RowMajorMatrix<double> readDouble(const std::string& name,
                                      const std::vector<long long>& rows = {}) const;
    RowMajorMatrix<float> readFloat(const std::string& name,
                                    const std::vector<long long>& rows = {}) const;

private:
    struct Storage;
    SafetensorsFile(std::unique_ptr<Storage> storage, std::string origin);
    static std::unique_ptr<Storage> map(const std::filesystem::path& path);
    template <class T>
    RowMajorMatrix<T> read(const std::string& name, const std::vector<long long>& rows) const;

    std::unique_ptr<Storage> storage_;
    std::string origin_;
    std::uint64_t dataStart_ = 0; // offset of the data area: 8 + header length
    std::map<std::string, std::string> metadata_;
    std::map<std::string, SafetensorsTensor> tensors_;
};

} // namespace attnlab
