// SPDX-License-Identifier: GPL-3.0-or-later
// Materialising matrix and token specifications in each scalar type.
#include "core/spec/matrix_spec.h"

#include "core/base/error.h"
#include "core/base/random.h"

#include <algorithm>
#include <type_traits>

namespace attnlab {

namespace {
// One seeded entry: a normal draw in float modes, a small integer in exact mode.
template <class T>
T randomEntry(SplitMix64& rng) {
    if constexpr (ScalarOps<T>::exact)
        return T(rng.integer(-3, 3));
    else
        return static_cast<T>(rng.normal());
}

template <class T>
Matrix<T> randomMatrix(int rows, int cols, std::uint64_t seed) {
    SplitMix64 rng(seed);
    Matrix<T> m(rows, cols);
    for (int i = 0; i < rows; ++i) // row by row, so the same seed fills the same cells
        for (int j = 0; j < cols; ++j)
            m(i, j) = randomEntry<T>(rng);
    return m;
}
} // namespace

MatrixSpec MatrixSpec::random(std::uint64_t seed, Rational scale) {
    MatrixSpec m;
    m.kind = Kind::Random;
    m.seed = seed;
    m.scale = std::move(scale);
    return m;
}

MatrixSpec MatrixSpec::given(Matrix<Rational> values) {
    MatrixSpec m;
    m.kind = Kind::Values;
    m.values = std::move(values);
    return m;
}

MatrixSpec MatrixSpec::fromNpy(Matrix<Rational> values, std::string file) {
    MatrixSpec m = given(std::move(values));
    m.file = std::move(file);
    return m;
}

MatrixSpec MatrixSpec::fromTensor(TensorRef tensor) {
    MatrixSpec m;
    m.kind = Kind::Tensor;
    m.tensor = std::move(tensor);
    return m;
}

int MatrixSpec::fixedRows() const {
    if (kind == Kind::Values) return int(values.rows());
    return kind == Kind::Tensor ? int(tensor.shape().first) : -1;
}

int MatrixSpec::fixedCols() const {
    if (kind == Kind::Values) return int(values.cols());
    return kind == Kind::Tensor ? int(tensor.shape().second) : -1;
}

namespace {
// Stored values in scalar type T: float and double as the source converts them, exact mode the
// binary values exactly.
template <class T>
RowMajorMatrix<T> readStored(const TensorSource& source, const std::string& name,
                             const std::vector<long long>& rows) {
    if constexpr (std::is_same_v<T, float>)
        return source.readFloat(name, rows);
    else if constexpr (std::is_same_v<T, double>)
        return source.readDouble(name, rows);
    else
        return source.readDouble(name, rows).unaryExpr([](double x) { return Rational(x); });
}

// The columns `picked` of m, in order (all when empty), column-major. Copied a band of rows at a
// time so that the rows being read stay in cache while every column takes its part of them.
template <class T>
Matrix<T> pickColumns(const RowMajorMatrix<T>& m, const std::vector<long long>& picked) {
    const Eigen::Index cols = picked.empty() ? m.cols() : Eigen::Index(picked.size());
    Matrix<T> out(m.rows(), cols);
    constexpr Eigen::Index band = 16;
    for (Eigen::Index r = 0; r < m.rows(); r += band) {
        const Eigen::Index height = std::min(band, m.rows() - r);
        for (Eigen::Index j = 0; j < cols; ++j)
            out.col(j).segment(r, height) =
                m.col(picked.empty() ? j : Eigen::Index(picked[std::size_t(j)])).segment(r, height);
    }
    return out;
}
} // namespace

std::pair<long long, long long> TensorRef::shape() const {
    auto [rows, cols] = source->shape(name);
    if (transposed) std::swap(rows, cols);
    for (long long c : columns)
        if (c < 0 || c >= cols)
            throw InputError(name + ": column " + std::to_string(c) + " of " +
                             std::to_string(cols) + " picked");
    return {rows, columns.empty() ? cols : static_cast<long long>(columns.size())};
}

template <class T>
Matrix<T> TensorRef::read() const {
    const auto [rows, cols] = shape();
    checkMatrixSize(rows, cols, name);
    if (!transposed) return pickColumns<T>(readStored<T>(*source, name, {}), columns);
    // The transpose's columns are stored rows: read only those, and the rows read are the
    // column-major transpose as they lie.
    const RowMajorMatrix<T> stored = readStored<T>(*source, name, columns);
    return Eigen::Map<const Matrix<T>>(stored.data(), stored.cols(), stored.rows());
}

template <class T>
Matrix<T> TensorRef::readRows(const std::vector<long long>& rows) const {
    const long long count = shape().first;
    for (long long r : rows)
        if (r < 0 || r >= count)
            throw InputError(name + ": row " + std::to_string(r) + " of " + std::to_string(count) +
                             " asked for");
    if (!transposed) return pickColumns<T>(readStored<T>(*source, name, rows), columns);
    Matrix<T> whole = read<T>();
    Matrix<T> out(Eigen::Index(rows.size()), whole.cols());
    for (std::size_t i = 0; i < rows.size(); ++i)
        out.row(Eigen::Index(i)) = whole.row(Eigen::Index(rows[i]));
    return out;
}

bool TensorRef::operator==(const TensorRef& o) const {
    const bool sameSource =
        source == o.source || (source && o.source && source->origin() == o.source->origin());
    return sameSource && name == o.name && transposed == o.transposed && columns == o.columns;
}

template <class T>
Matrix<T> MatrixSpec::materialize(int rows, int cols) const {
    checkMatrixSize(rows, cols, "matrix");
    switch (kind) {
    case Kind::Identity:
        return Matrix<T>::Identity(rows, cols);
    case Kind::Random:
        return randomMatrix<T>(rows, cols, seed) * ScalarOps<T>::fromRational(scale);
    case Kind::Values:
        if (values.rows() != rows || values.cols() != cols)
            throw InputError("matrix is " + std::to_string(values.rows()) + " x " +
                             std::to_string(values.cols()) + ", expected " + std::to_string(rows) +
                             " x " + std::to_string(cols));
        return fromRational<T>(values);
    case Kind::Tensor: {
        const auto [r, c] = tensor.shape();
        if (r != rows || c != cols)
            throw InputError("tensor " + tensor.name + " is " + std::to_string(r) + " x " +
                             std::to_string(c) + ", expected " + std::to_string(rows) + " x " +
                             std::to_string(cols));
        return tensor.read<T>();
    }
    }
    return {};
}

bool MatrixSpec::operator==(const MatrixSpec& o) const {
    if (kind != o.kind) return false;
    switch (kind) {
    case Kind::Identity:
        return true;
    case Kind::Random:
        return seed == o.seed && scale == o.scale;
    case Kind::Values:
        return values.rows() == o.values.rows() && values.cols() == o.values.cols() &&
               values == o.values && file == o.file;
    case Kind::Tensor:
        return tensor == o.tensor;
    }
    return false;
}

TokenSpec TokenSpec::given(Matrix<Rational> values) {
    TokenSpec t;
    t.values = std::move(values);
    return t;
}
TokenSpec TokenSpec::random(int n, int d, std::uint64_t seed) {
    TokenSpec t;
    t.kind = Kind::Random;
    t.n = n;
    t.d = d;
    t.seed = seed;
    return t;
}
TokenSpec TokenSpec::oneHot(int n) {
    TokenSpec t;
    t.kind = Kind::OneHot;
    t.n = n;
    t.d = n;
    return t;
}
TokenSpec TokenSpec::arange(int n, int d) {
    TokenSpec t;
    t.kind = Kind::Arange;
    t.n = n;
    t.d = d;
    return t;
}

TokenSpec TokenSpec::lookup(std::vector<long long> ids, MatrixSpec embedding) {
    TokenSpec t;
    t.kind = Kind::Ids;
    const int vocabulary = embedding.fixedRows();
    if (vocabulary < 0 || embedding.fixedCols() < 0)
        throw InputError("tokens: an embedding table needs given values or a tensor");
    for (long long id : ids)
        if (id < 0 || id >= vocabulary)
            throw InputError("tokens: id " + std::to_string(id) + " is not in the vocabulary (" +
                             std::to_string(vocabulary) + " tokens)");
    t.ids = std::move(ids);
    t.embedding = std::move(embedding);
    return t;
}

int TokenSpec::rows() const {
    if (kind == Kind::Ids) return int(ids.size());
    return kind == Kind::Values ? int(values.rows()) : n;
}

int TokenSpec::cols() const {
    if (kind == Kind::Ids) return embedding.fixedCols();
    return kind == Kind::Values ? int(values.cols()) : d;
}

template <class T>
Matrix<T> TokenSpec::materialize() const {
    checkMatrixSize(rows(), cols(), "tokens");
    switch (kind) {
    case Kind::Ids: {
        if (embedding.kind == MatrixSpec::Kind::Tensor) return embedding.tensor.readRows<T>(ids);
        Matrix<T> m(rows(), cols());
        for (std::size_t i = 0; i < ids.size(); ++i)
            try {
                m.row(Eigen::Index(i)) =
                    fromRational<T>(embedding.values.row(Eigen::Index(ids[i])));
            } catch (const InputError& e) {
                throw InputError("tokens",
                                 "id " + std::to_string(ids[i]) + "'s embedding " + e.what());
            }
        return m;
    }
    case Kind::Values:
        try {
            return fromRational<T>(values);
        } catch (const InputError& e) {
            throw InputError("tokens", e.what());
        }
    case Kind::Random:
        return randomMatrix<T>(n, d, seed);
    case Kind::OneHot:
        return Matrix<T>::Identity(n, n);
    case Kind::Arange: {
        Matrix<T> m(n, d);
        for (int i = 0; i < n; ++i)
            m.row(i).setConstant(T(i));
        return m;
    }
    }
    return {};
}

bool TokenSpec::operator==(const TokenSpec& o) const {
    if (kind != o.kind || labels != o.labels) return false;
    if (kind == Kind::Ids) return ids == o.ids && embedding == o.embedding;
    if (kind == Kind::Values)
        return values.rows() == o.values.rows() && values.cols() == o.values.cols() &&
               values == o.values;
    return n == o.n && d == o.d && seed == o.seed;
}

template Matrix<float> MatrixSpec::materialize<float>(int, int) const;
template Matrix<double> MatrixSpec::materialize<double>(int, int) const;
template Matrix<Rational> MatrixSpec::materialize<Rational>(int, int) const;
template Matrix<float> TensorRef::read<float>() const;
template Matrix<double> TensorRef::read<double>() const;
template Matrix<Rational> TensorRef::read<Rational>() const;
template Matrix<float> TensorRef::readRows<float>(const std::vector<long long>&) const;
template Matrix<double> TensorRef::readRows<double>(const std::vector<long long>&) const;
template Matrix<Rational> TensorRef::readRows<Rational>(const std::vector<long long>&) const;
template Matrix<float> TokenSpec::materialize<float>() const;
template Matrix<double> TokenSpec::materialize<double>() const;
template Matrix<Rational> TokenSpec::materialize<Rational>() const;

} // namespace attnlab
