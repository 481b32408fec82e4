// SPDX-License-Identifier: GPL-3.0-or-later
// Matrices as a scenario states them: given values (kept as exact rationals, so nothing is
// lost between file, exact mode and float modes), the identity, a seeded random recipe, or a
// checkpoint's tensor; and the token generators. `materialize<T>` turns either into numbers of
// scalar type T.
#pragma once

#include "core/base/error.h"
#include "core/base/matrix_size.h"
#include "core/base/scalar.h"
#include "core/formats/tensor_source.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

/// A matrix read from a checkpoint: the stored tensor or its transpose (torch's Linear stores
/// out x in, a projection here is in x out), optionally only some of the columns, in order (the
/// query, key or value part of a fused projection).
struct TensorRef {
    std::shared_ptr<const TensorSource> source;
    std::string name;
    bool transposed = false;
    std::vector<long long> columns; // empty: every column

    /// Rows and columns of the matrix (after transposing and picking columns).
    std::pair<long long, long long> shape() const;
    /// The whole matrix in scalar type T (exact mode: the stored binary values exactly).
    template <class T>
    Matrix<T> read() const;
    /// The given rows of the matrix (embedding look-ups read only those); throws InputError when
    /// one is out of range.
    template <class T>
    Matrix<T> readRows(const std::vector<long long>& rows) const;
    bool operator==(const TensorRef& o) const;
};

struct MatrixSpec {
    enum class Kind { Identity, Random, Values, Tensor };
    Kind kind = Kind::Identity;
    std::uint64_t seed = 0;  // random
    Rational scale = 1;      // random
    Matrix<Rational> values; // values
    std::string file;        // values read from a .npy (absolute path); else empty
    TensorRef tensor;        // tensor

    static MatrixSpec identity() { return {}; }
    static MatrixSpec random(std::uint64_t seed, Rational scale = 1);
    static MatrixSpec given(Matrix<Rational> values);
    /// Values read from the .npy at `file` (kept so that a scenario refers to the file).
    static MatrixSpec fromNpy(Matrix<Rational> values, std::string file);
    static MatrixSpec fromTensor(TensorRef tensor);

    /// The rows x cols matrix: identity (padded when not square); random: normal entries times
    /// `scale` in float modes, integers in [-3, 3] times `scale` in exact mode; values and
    /// tensors: as given (throws InputError when their shape is not rows x cols).
    template <class T>
    Matrix<T> materialize(int rows, int cols) const;
    /// Rows and columns of given values or a tensor, or -1 when the shape follows from context.
    int fixedRows() const;
    int fixedCols() const;

    bool operator==(const MatrixSpec& o) const;
};

/// The token matrix of a scenario: given values, a generator, or token ids looked up in an
/// embedding table (a checkpoint's). Labels, when given, name the tokens on every axis.
struct TokenSpec {
    enum class Kind { Values, Random, OneHot, Arange, Ids };
    Kind kind = Kind::Values;
    int n = 0, d = 0;
    std::uint64_t seed = 0;
    Matrix<Rational> values;
    std::vector<long long> ids; // ids: rows of `embedding`
    MatrixSpec embedding;       // ids: vocabulary x d
    std::vector<std::string> labels;

    static TokenSpec given(Matrix<Rational> values);
    static TokenSpec random(int n, int d, std::uint64_t seed);
    static TokenSpec oneHot(int n);
    static TokenSpec arange(int n, int d);
    /// Throws InputError when an id is not a row of the embedding.
    static TokenSpec lookup(std::vector<long long> ids, MatrixSpec embedding);

    int rows() const;
    int cols() const;
    /// The n x d tokens (random: normal in float modes, integers in [-3, 3] in exact).
    template <class T>
    Matrix<T> materialize() const;

    bool operator==(const TokenSpec& o) const;
};

/// Converts an exact matrix to scalar type T; an entry beyond T's range is refused, named by its
/// row and column as a file writes them ([row][column]).
template <class T>
Matrix<T> fromRational(const Matrix<Rational>& m) {
    Matrix<T> out(m.rows(), m.cols());
    Eigen::Index i = 0;
    try {
        for (; i < m.size(); ++i)
            out(i) = ScalarOps<T>::fromRational(m(i));
    } catch (const InputError& e) {
        throw InputError("[" + std::to_string(i % m.rows()) + "][" + std::to_string(i / m.rows()) +
                             "]",
                         e.what());
    }
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
