// Materialising matrix and token specifications in each scalar type.
#include "core/spec/matrix_spec.h"

#include "core/base/error.h"
#include "core/base/random.h"

namespace attnlab {

void checkMatrixSize(long long rows, long long cols, const std::string& what) {
    if (rows < 0 || cols < 0 || (cols > 0 && rows > kMaxMatrixEntries / cols))
        throw InputError(what + " of " + std::to_string(rows) + " x " + std::to_string(cols) +
                         " entries is too large (limit " + std::to_string(kMaxMatrixEntries) +
                         " entries)");
}

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
               values == o.values;
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

template <class T>
Matrix<T> TokenSpec::materialize() const {
    checkMatrixSize(rows(), cols(), "tokens");
    switch (kind) {
    case Kind::Values:
        return fromRational<T>(values);
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
    if (kind != o.kind) return false;
    if (kind == Kind::Values)
        return values.rows() == o.values.rows() && values.cols() == o.values.cols() &&
               values == o.values;
    return n == o.n && d == o.d && seed == o.seed;
}

template Matrix<float> MatrixSpec::materialize<float>(int, int) const;
template Matrix<double> MatrixSpec::materialize<double>(int, int) const;
template Matrix<Rational> MatrixSpec::materialize<Rational>(int, int) const;
template Matrix<float> TokenSpec::materialize<float>() const;
template Matrix<double> TokenSpec::materialize<double>() const;
template Matrix<Rational> TokenSpec::materialize<Rational>() const;

} // namespace attnlab
