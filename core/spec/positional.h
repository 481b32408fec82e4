// Positional information (properties.md §1.4): absolute methods that add a table to the tokens
// before the first layer (polynomial, sinusoidal, learned) and relative methods that act inside
// every attention layer (RoPE rotates Q and K, ALiBi adds a distance bias). Positions are
// i + offset for every method.
#pragma once

#include "core/base/scalar.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

/// The RoPE base when a scenario gives none.
inline constexpr double kDefaultRopeBase = 10000;
/// Whether `base` can be a RoPE base: a number greater than 1.
bool isValidRopeBase(double base);

struct PositionalSpec {
    enum class Kind { None, Polynomial, Sinusoidal, Learned, Rope, Alibi };
    Kind kind = Kind::None;
    long offset = 0;                // positions are i + offset
    bool seeded = true;             // learned: drawn from `seed` rather than `table`
    std::uint64_t seed = 0;         // learned
    Matrix<Rational> table;         // learned, given
    double base = kDefaultRopeBase; // rope
    std::vector<Rational> slopes;   // alibi, one per head (empty: the default 2^(-8k/h))
    bool causal = false;            // alibi: -m·(s - t) instead of -m·|s - t|

    bool isAbsolute() const {
        return kind == Kind::Polynomial || kind == Kind::Sinusoidal || kind == Kind::Learned;
    }
    bool isRelative() const { return kind == Kind::Rope || kind == Kind::Alibi; }
    /// "polynomial", "rope", "alibi (causal)", ...
    std::string describe() const;
    /// Throws InputError when the method cannot run in `precision` (sinusoidal and RoPE need
    /// sin/cos; default ALiBi slopes need a real power unless 8k/h is an integer).
    void checkPrecision(Precision precision, int heads) const;

    bool operator==(const PositionalSpec& o) const;
};

/// The n x d table an absolute method adds to the tokens (zeros for none and relative methods).
/// Throws InputError when the shape does not fit (polynomial needs d = 3; a given table must
/// be n x d).
template <class T>
Matrix<T> absolutePositions(const PositionalSpec& spec, int n, int d);

/// Rotates each consecutive coordinate pair of every row i of `x` (one head's Q or K block)
/// by the angle (i + offset)·base^(-2k/p); an odd last coordinate stays. `transpose` applies the
/// transposed rotation (by minus the angle), as the reverse pass needs.
template <class T>
void applyRope(Matrix<T>& x, long offset, double base, bool transpose = false);

/// The ALiBi slope m of head `head` (0-based) out of `heads`: the given one, else 2^(-8k/h).
template <class T>
T alibiSlope(const PositionalSpec& spec, int head, int heads);

/// The additive ALiBi bias of head `head` (0-based) out of `heads` for n positions.
template <class T>
Matrix<T> alibiBias(const PositionalSpec& spec, int n, int head, int heads);

} // namespace attnlab
