// Matrices as a scenario states them: given values (kept as exact rationals, so nothing is
// lost between file, exact mode and float modes), the identity, or a seeded random recipe;
// and the token generators. `materialize<T>` turns either into numbers of scalar type T.
#pragma once

#include "core/base/scalar.h"

#include <cstdint>
#include <string>

namespace attnlab {

/// Largest number of entries a single matrix may have (refused before allocation beyond it).
inline constexpr long long kMaxMatrixEntries = 1LL << 26;

/// Throws InputError when rows x cols exceeds kMaxMatrixEntries, naming the size.
void checkMatrixSize(long long rows, long long cols, const std::string& what);

struct MatrixSpec {
    enum class Kind { Identity, Random, Values };
    Kind kind = Kind::Identity;
    std::uint64_t seed = 0;  // random
    Rational scale = 1;      // random
    Matrix<Rational> values; // values

    static MatrixSpec identity() { return {}; }
    static MatrixSpec random(std::uint64_t seed, Rational scale = 1);
    static MatrixSpec given(Matrix<Rational> values);

    /// The rows x cols matrix: identity (padded when not square); random: normal entries times
    /// `scale` in float modes, integers in [-3, 3] times `scale` in exact mode; values: as given
    /// (throws InputError when their shape is not rows x cols).
    template <class T>
    Matrix<T> materialize(int rows, int cols) const;
    /// Rows and columns of given values, or -1 when the shape follows from context.
    int fixedRows() const { return kind == Kind::Values ? int(values.rows()) : -1; }
    int fixedCols() const { return kind == Kind::Values ? int(values.cols()) : -1; }

    bool operator==(const MatrixSpec& o) const;
};

/// The token matrix of a scenario: given values or a generator.
struct TokenSpec {
    enum class Kind { Values, Random, OneHot, Arange };
    Kind kind = Kind::Values;
    int n = 0, d = 0;
    std::uint64_t seed = 0;
    Matrix<Rational> values;

    static TokenSpec given(Matrix<Rational> values);
    static TokenSpec random(int n, int d, std::uint64_t seed);
    static TokenSpec oneHot(int n);
    static TokenSpec arange(int n, int d);

    int rows() const { return kind == Kind::Values ? int(values.rows()) : n; }
    int cols() const { return kind == Kind::Values ? int(values.cols()) : d; }
    /// The n x d tokens (random: normal in float modes, integers in [-3, 3] in exact).
    template <class T>
    Matrix<T> materialize() const;

    bool operator==(const TokenSpec& o) const;
};

/// Converts an exact matrix to scalar type T.
template <class T>
Matrix<T> fromRational(const Matrix<Rational>& m) {
    Matrix<T> out(m.rows(), m.cols());
    for (Eigen::Index i = 0; i < m.size(); ++i)
        out(i) = ScalarOps<T>::fromRational(m(i));
    return out;
}

/// Converts any matrix to double (for printing, plotting and .npy files).
template <class T>
Eigen::MatrixXd toDoubleMatrix(const Matrix<T>& m) {
    Eigen::MatrixXd out(m.rows(), m.cols());
    for (Eigen::Index i = 0; i < m.size(); ++i)
        out(i) = ScalarOps<T>::toDouble(m(i));
    return out;
}

} // namespace attnlab
