// SPDX-License-Identifier: GPL-3.0-or-later
// A permutation σ of {0..n-1}: a validated bijection, its algebra (compose, inverse, cycles)
// and its action on matrices with the convention (P_σ X)[i] = X[σ(i)].
#pragma once

#include "core/base/scalar.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

class Permutation {
public:
    /// The identity of size 0.
    Permutation() = default;
    /// Validates that `images` is a bijection of 0..n-1; throws InputError naming the
    /// first out-of-range or repeated value.
    explicit Permutation(std::vector<int> images);

    static Permutation identity(int n);
    /// σ(i) = n-1-i.
    static Permutation reverse(int n);
    /// A uniformly random permutation drawn from `seed` (same seed, same σ on every machine).
    static Permutation random(int n, std::uint64_t seed);
    /// The swap of i and j.
    static Permutation transposition(int n, int i, int j);
    /// Parses cycle notation such as "(0 2)(1 3)" or "()" over 0..n-1.
    static Permutation fromCycles(std::string_view text, int n);

    int size() const { return static_cast<int>(images_.size()); }
    int operator()(int i) const { return images_[static_cast<std::size_t>(i)]; }
    const std::vector<int>& images() const { return images_; }
    bool isIdentity() const;

    /// (σ ∘ τ)(i) = σ(τ(i)). Both must have the same size.
    Permutation compose(const Permutation& tau) const;
    Permutation inverse() const;
    /// Disjoint cycles of length ≥ 2, each starting at its smallest element, e.g. "(0 2)(1 3)";
    /// "()" for the identity.
    std::string cycles() const;

    /// (P_σ X)[i] = X[σ(i)] on the rows of X.
    template <class T>
    Matrix<T> applyRows(const Matrix<T>& x) const {
        checkSize(static_cast<int>(x.rows()), "rows");
        Matrix<T> out(x.rows(), x.cols());
        for (int i = 0; i < size(); ++i)
            out.row(i) = x.row((*this)(i));
        return out;
    }
    /// (P_σ A P_σᵀ)[i][j] = A[σ(i)][σ(j)] for a square A.
    template <class M>
    M applyBoth(const M& a) const {
        checkSize(static_cast<int>(a.rows()), "rows");
        checkSize(static_cast<int>(a.cols()), "columns");
        M out(a.rows(), a.cols());
        for (int i = 0; i < size(); ++i)
            for (int j = 0; j < size(); ++j)
                out(i, j) = a((*this)(i), (*this)(j));
        return out;
    }

    bool operator==(const Permutation&) const = default;

private:
    void checkSize(int count, const char* what) const;
    std::vector<int> images_;
};

} // namespace attnlab
