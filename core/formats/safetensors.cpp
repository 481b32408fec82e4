// SPDX-License-Identifier: GPL-3.0-or-later
// Reading .safetensors files: the mapping, the header's validation and the rows' conversion.
#include "core/formats/safetensors.h"

#include "core/base/error.h"
#include "core/formats/json_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian and read in place");

namespace attnlab {

namespace {

constexpr std::uint64_t maxHeaderBytes = 100'000'000;

/// Every dtype safetensors defines, with its size in bytes.
struct DtypeEntry {
    const char* name;
    SafetensorsDtype dtype;
    std::size_t size;
};

const DtypeEntry dtypes[] = {
    {"F32", SafetensorsDtype::F32, 4},       {"F16", SafetensorsDtype::F16, 2},
    {"BF16", SafetensorsDtype::BF16, 2},     {"F64", SafetensorsDtype::F64, 8},
    {"BOOL", SafetensorsDtype::Other, 1},    {"U8", SafetensorsDtype::Other, 1},
    {"I8", SafetensorsDtype::Other, 1},      {"F8_E4M3", SafetensorsDtype::Other, 1},
    {"F8_E5M2", SafetensorsDtype::Other, 1}, {"I16", SafetensorsDtype::Other, 2},
    {"U16", SafetensorsDtype::Other, 2},     {"I32", SafetensorsDtype::Other, 4},
    {"U32", SafetensorsDtype::Other, 4},     {"I64", SafetensorsDtype::Other, 8},
    {"U64", SafetensorsDtype::Other, 8},
};

const DtypeEntry& dtypeEntry(const std::string& name) {
    for (const DtypeEntry& entry : dtypes)
        if (name == entry.name) return entry;
    throw InputError("\"" + name + "\" is not a safetensors dtype");
}

template <class T>
T load(const char* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

double decodeF16(const char* p) {
    return halfToFloat(load<std::uint16_t>(p));
}
double decodeBF16(const char* p) {
    return bfloat16ToFloat(load<std::uint16_t>(p));
}
double decodeF32(const char* p) {
    return load<float>(p);
}
double decodeF64(const char* p) {
    return load<double>(p);
}

/// One stored entry as double (exact for every dtype).
double decode(SafetensorsDtype dtype, const char* p) {
    switch (dtype) {
    case SafetensorsDtype::F16:
        return decodeF16(p);
    case SafetensorsDtype::BF16:
        return decodeBF16(p);
    case SafetensorsDtype::F32:
        return decodeF32(p);
    case SafetensorsDtype::F64:
    case SafetensorsDtype::Other: // refused before reading
        return decodeF64(p);
    }
    return 0;
}

/// Converts a stored row of `cols` entries into `out` (a row of a row-major matrix); returns the
/// column of the first entry not finite in T, or -1.
template <class T, double (*Decode)(const char*), std::size_t width>
long long convertRowAs(const char* p, long long cols, T* out) {
    for (long long j = 0; j < cols; ++j, p += width, ++out) {
        *out = static_cast<T>(Decode(p));
        if (!std::isfinite(*out)) return j;
    }
    return -1;
}

template <class T>
long long convertRow(SafetensorsDtype dtype, const char* p, long long cols, T* out) {
    switch (dtype) {
    case SafetensorsDtype::F16:
        return convertRowAs<T, decodeF16, 2>(p, cols, out);
    case SafetensorsDtype::BF16:
        return convertRowAs<T, decodeBF16, 2>(p, cols, out);
    case SafetensorsDtype::F32:
        return convertRowAs<T, decodeF32, 4>(p, cols, out);
    case SafetensorsDtype::F64:
    case SafetensorsDtype::Other: // refused before reading
        return convertRowAs<T, decodeF64, 8>(p, cols, out);
    }
    return -1;
}

/// "[a, b, ...]".
std::string shapeText(const std::vector<long long>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

std::string quoted(const std::string& name) {
    return "\"" + name + "\"";
}

const DtypeEntry& parseDtype(const JsonReader& node) {
    try {
        return dtypeEntry(node.string());
    } catch (const InputError& e) {
        node.fail(e.what());
    }
}

/// The shape with leading 1s dropped down to rank 2; refuses a higher rank.
std::vector<long long> parseShape(const JsonReader& node) {
    std::vector<long long> shape;
    for (std::size_t i = 0; i < node.size(); ++i)
        shape.push_back(node.at(i).integer(0, 1L << 48));
    while (shape.size() > 2 && shape.front() == 1)
        shape.erase(shape.begin());
    if (shape.size() > 2)
        node.fail("rank " + std::to_string(shape.size()) + " " + shapeText(shape) +
                  " is not supported (at most 2, after dropping leading dimensions of 1)");
    return shape;
}

/// The bytes `shape` of entries of `dtypeSize` bytes occupies; refuses a product that overflows.
std::uint64_t byteCount(const JsonReader& node, const std::vector<long long>& shape,
                        std::size_t dtypeSize) {
    std::uint64_t bytes = dtypeSize;
    for (long long extent : shape)
        if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(extent), &bytes))
            node.fail("shape " + shapeText(shape) + " is too large");
    return bytes;
}

SafetensorsTensor parseTensor(const JsonReader& entry, std::uint64_t dataSize) {
    entry.expectObject({"dtype", "shape", "data_offsets"});
    SafetensorsTensor t;
    const DtypeEntry& dtype = parseDtype(entry.at("dtype"));
    t.dtype = dtype.dtype;
    t.dtypeName = dtype.name;
    t.shape = parseShape(entry.at("shape"));
    t.rows = t.shape.size() == 2 ? t.shape[0] : 1;
    t.cols = t.shape.empty() ? 1 : t.shape.back();
    const std::uint64_t need = byteCount(entry.at("shape"), t.shape, dtype.size);
    const JsonReader offsets = entry.at("data_offsets");
    if (offsets.size() != 2) offsets.fail("must be [begin, end]");
    const long limit = std::numeric_limits<long>::max();
    t.begin = static_cast<std::uint64_t>(offsets.at(std::size_t{0}).integer(0, limit));
    t.end = static_cast<std::uint64_t>(offsets.at(std::size_t{1}).integer(0, limit));
    const std::string range =
        shapeText({static_cast<long long>(t.begin), static_cast<long long>(t.end)});
    if (t.begin > t.end || t.end > dataSize)
        offsets.fail(range + " lies outside the data area of " + std::to_string(dataSize) +
                     " bytes");
    if (t.end - t.begin != need)
        offsets.fail(range + " holds " + std::to_string(t.end - t.begin) + " bytes but shape " +
                     shapeText(t.shape) + " of " + t.dtypeName + " needs " + std::to_string(need));
    return t;
}

std::map<std::string, std::string> parseMetadata(const JsonReader& node) {
    if (!node.isObject()) node.fail("must be an object of strings");
    std::map<std::string, std::string> metadata;
    for (const auto& item : node.node().items())
        metadata[item.key()] = node.at(item.key()).string();
    return metadata;
}

/// Refuses tensors whose byte ranges overlap (empty tensors overlap nothing).
void checkDisjoint(const std::map<std::string, SafetensorsTensor>& tensors,
                   const std::string& origin) {
    std::vector<std::pair<const std::string*, const SafetensorsTensor*>> byBegin;
    for (const auto& entry : tensors)
        if (entry.second.end > entry.second.begin)
            byBegin.emplace_back(&entry.first, &entry.second);
    std::sort(byBegin.begin(), byBegin.end(),
              [](const auto& a, const auto& b) { return a.second->begin < b.second->begin; });
    for (std::size_t i = 1; i < byBegin.size(); ++i)
        if (byBegin[i].second->begin < byBegin[i - 1].second->end)
            throw InputError(origin, "tensors " + quoted(*byBegin[i - 1].first) + " and " +
                                         quoted(*byBegin[i].first) + " overlap in the data area");
}

void checkFinite(double value, const std::string& where) {
    if (std::isnan(value)) throw InputError(where, "is NaN");
    if (std::isinf(value)) throw InputError(where, "is infinite");
}

} // namespace

float halfToFloat(std::uint16_t bits) {
    const std::uint32_t sign = std::uint32_t(bits >> 15) << 31;
    const std::uint32_t exponent = (bits >> 10) & 0x1f;
    const std::uint32_t mantissa = bits & 0x3ff;
    if (exponent == 0) { // zero or subnormal: mantissa * 2^-24, exact in float
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    const std::uint32_t floatExponent = exponent == 0x1f ? 0xff : exponent - 15 + 127;
    return std::bit_cast<float>(sign | (floatExponent << 23) | (mantissa << 13));
}

float bfloat16ToFloat(std::uint16_t bits) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// The file's bytes: a read-only private mapping, or a string for bytes given in memory.
struct SafetensorsFile::Storage {
    const char* data = nullptr;
    std::uint64_t size = 0;
    void* mapping = nullptr;
    std::string bytes;

    Storage() = default;
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    ~Storage() {
        if (mapping) munmap(mapping, size);
    }

    /// Drops the mapped pages covering [offset, offset + length): they are read back from the
    /// page cache or the file if touched again.
    void release(std::uint64_t offset, std::uint64_t length) const {
        if (!mapping || length == 0) return;
        const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
        const std::uint64_t first = offset / page * page;
        const std::uint64_t last = std::min(size, offset + length);
        madvise(static_cast<char*>(mapping) + first, last - first, MADV_DONTNEED);
    }
};

namespace {

/// Collects the byte ranges a read touches, merges adjacent ones and hands each merged range to
/// `release` when the read is done (or abandoned by an exception).
template <class Release>
class PageRelease {
public:
    explicit PageRelease(Release release) : release_(std::move(release)) {}
    PageRelease(const PageRelease&) = delete;
    PageRelease& operator=(const PageRelease&) = delete;
    ~PageRelease() { flush(); }

    void add(std::uint64_t offset, std::uint64_t length) {
        if (offset != end_) {
            flush();
            begin_ = offset;
        }
        end_ = offset + length;
    }

private:
    void flush() {
        if (end_ > begin_) release_(begin_, end_ - begin_);
        begin_ = end_;
    }

    Release release_;
    std::uint64_t begin_ = 0, end_ = 0;
};

} // namespace

std::unique_ptr<SafetensorsFile::Storage> SafetensorsFile::map(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
    struct stat info {};
    auto storage = std::make_unique<Storage>();
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
        storage->size = static_cast<std::uint64_t>(info.st_size);
        if (storage->size >= 8)
            storage->mapping = mmap(nullptr, storage->size, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    const int mapError = errno;
    ::close(fd);
    if (!S_ISREG(info.st_mode)) throw InputError(path.string(), "is not a regular file");
    if (storage->mapping == MAP_FAILED) {
        storage->mapping = nullptr;
        throw InputError(path.string(), std::string("cannot map: ") + std::strerror(mapError));
    }
    storage->data = static_cast<const char*>(storage->mapping);
    return storage;
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : SafetensorsFile(map(path), path.string()) {}

SafetensorsFile SafetensorsFile::fromBytes(std::string bytes, std::string origin) {
    auto storage = std::make_unique<Storage>();
    storage->bytes = std::move(bytes);
    storage->data = storage->bytes.data();
    storage->size = storage->bytes.size();
    return SafetensorsFile(std::move(storage), std::move(origin));
}

SafetensorsFile::SafetensorsFile(std::unique_ptr<Storage> storage, std::string origin)
    : storage_(std::move(storage)), origin_(std::move(origin)) {
    const std::uint64_t size = storage_->size;
    if (size < 8) throw InputError(origin_, "truncated: shorter than the 8-byte header length");
    const auto headerBytes = load<std::uint64_t>(storage_->data);
    if (headerBytes > maxHeaderBytes)
        throw InputError(origin_, "header length " + std::to_string(headerBytes) +
                                      " exceeds the limit of " + std::to_string(maxHeaderBytes));
    if (headerBytes > size - 8)
        throw InputError(origin_, "header length " + std::to_string(headerBytes) +
                                      " goes beyond the end of the file (" + std::to_string(size) +
                                      " bytes): truncated?");
    dataStart_ = 8 + headerBytes;
    const char* header = storage_->data + 8;
    const nlohmann::json json = nlohmann::json::parse(header, header + headerBytes, nullptr, false);
    if (json.is_discarded() || !json.is_object())
        throw InputError(origin_, "the header is not a JSON object");
    for (const auto& item : json.items()) {
        if (item.key() == "__metadata__") {
            metadata_ = parseMetadata(JsonReader(item.value(), origin_ + ": __metadata__"));
            continue;
        }
        const JsonReader entry(item.value(), origin_ + ": tensor " + quoted(item.key()));
        tensors_[item.key()] = parseTensor(entry, size - dataStart_);
    }
    checkDisjoint(tensors_, origin_);
    storage_->release(0, dataStart_);
}

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

const std::string& SafetensorsFile::origin() const {
    return origin_;
}

const std::map<std::string, std::string>& SafetensorsFile::metadata() const {
    return metadata_;
}

std::vector<std::string> SafetensorsFile::names() const {
    std::vector<std::string> names;
    for (const auto& entry : tensors_)
        names.push_back(entry.first);
    return names;
}

bool SafetensorsFile::has(const std::string& name) const {
    return tensors_.count(name) > 0;
}

const SafetensorsTensor& SafetensorsFile::tensor(const std::string& name) const {
    const auto found = tensors_.find(name);
    if (found == tensors_.end()) throw InputError(origin_, "no tensor " + quoted(name));
    return found->second;
}

template <class T>
RowMajorMatrix<T> SafetensorsFile::read(const std::string& name,
                                        const std::vector<long long>& rows) const {
    const SafetensorsTensor& t = tensor(name);
    const std::string where = origin_ + ": tensor " + quoted(name);
    for (long long row : rows)
        if (row < 0 || row >= t.rows)
            throw InputError(where, "row " + std::to_string(row) + " is out of range (it has " +
                                        std::to_string(t.rows) + " rows)");
    const long long count = rows.empty() ? t.rows : static_cast<long long>(rows.size());
    if (t.dtype == SafetensorsDtype::Other)
        throw InputError(where, "dtype " + quoted(t.dtypeName) +
                                    " is not supported (supported: F32, F16, BF16, F64)");
    const std::size_t width = dtypeEntry(t.dtypeName).size;
    const std::uint64_t rowBytes = static_cast<std::uint64_t>(t.cols) * width;
    PageRelease pages(
        [this](std::uint64_t offset, std::uint64_t length) { storage_->release(offset, length); });
    RowMajorMatrix<T> m(count, t.cols);
    if (m.size() == 0) return m; // an empty matrix has no storage to write rows into
    for (long long i = 0; i < count; ++i) {
        const long long row = rows.empty() ? i : rows[static_cast<std::size_t>(i)];
        const std::uint64_t offset =
            dataStart_ + t.begin + static_cast<std::uint64_t>(row) * rowBytes;
        const char* p = storage_->data + offset;
        const long long bad = convertRow(t.dtype, p, t.cols, m.data() + i * t.cols);
        if (bad >= 0) {
            const double value = decode(t.dtype, p + bad * width);
            const std::string entry =
                where + " entry (" + std::to_string(row) + ", " + std::to_string(bad) + ")";
            checkFinite(value, entry);
            std::ostringstream text;
            text << value;
            throw InputError(entry, text.str() + " does not fit in float");
        }
        pages.add(offset, rowBytes);
    }
    return m;
}

RowMajorMatrix<double> SafetensorsFile::readDouble(const std::string& name,
                                                   const std::vector<long long>& rows) const {
    return read<double>(name, rows);
}

RowMajorMatrix<float> SafetensorsFile::readFloat(const std::string& name,
                                                 const std::vector<long long>& rows) const {
    return read<float>(name, rows);
}

} // namespace attnlab
