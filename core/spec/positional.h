// SPDX-License-Identifier: GPL-3.0-or-later
// Positional information (properties.md §1.4): absolute methods that add a table to the tokens
// before the first layer (polynomial, sinusoidal, learned) and relative methods that act inside
// every attention layer (RoPE rotates Q and K, ALiBi adds a distance bias). Positions are
// i + offset for every method.
#pragma once

#include "core/base/scalar.h"
#include "core/spec/matrix_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

/// How far positions may be offset: a scenario's positional.offset, a shift check's offsets.
inline constexpr long kMaxPositionOffset = 1L << 16;

/// The RoPE base when a scenario gives none.
inline constexpr double kDefaultRopeBase = 10000;
/// Whether `base` can be a RoPE base: a number greater than 1.
bool isValidRopeBase(double base);

/// How RoPE's frequencies are rescaled for long contexts (Hugging Face's `rope_scaling`):
/// linear divides every position by `factor`; llama3 divides the low frequencies by `factor`,
/// keeps the high ones and blends those between (wavelengths between
/// originalContext/highFrequencyFactor and originalContext/lowFrequencyFactor).
struct RopeScaling {
    enum class Kind { None, Linear, Llama3 };
    Kind kind = Kind::None;
    double factor = 1;
    double lowFrequencyFactor = 1, highFrequencyFactor = 4; // llama3
    double originalContext = 8192;                          // llama3
    bool operator==(const RopeScaling&) const = default;
};

struct PositionalSpec {
    enum class Kind { None, Polynomial, Sinusoidal, Learned, Rope, Alibi };
    /// Which coordinates RoPE rotates together: (2k, 2k+1) (GPT-J, the default) or (k, k + r/2)
    /// (Llama, GPT-NeoX: `rotate_half`).
    enum class RopeStyle { Interleaved, Half };
    Kind kind = Kind::None;
    long offset = 0;                          // positions are i + offset
    bool seeded = true;                       // learned: drawn from `seed` rather than `table`
    std::uint64_t seed = 0;                   // learned
    MatrixSpec table;                         // learned, given (values or a checkpoint's tensor)
    double base = kDefaultRopeBase;           // rope
    RopeStyle style = RopeStyle::Interleaved; // rope
    int rotaryDim = 0;            // rope: the first rotaryDim coordinates of a head (0: all)
    RopeScaling scaling;          // rope
    std::vector<Rational> slopes; // alibi, one per head (empty: the paper's, see alibiSlope)
    bool causal = false;          // alibi: -m·(s - t) instead of -m·|s - t|

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

/// The angular frequency of each of RoPE's rotated pairs for heads of width p: base^(-2k/r)
/// for the r = rotaryDim (or p) rotated coordinates, rescaled as `spec.scaling` says.
std::vector<double> ropeFrequencies(const PositionalSpec& spec, int p);

/// Rotates each pair of coordinates (as `spec.style` pairs them, among the first rotaryDim) of
/// every row i of `x` (one head's Q or K block) by the angle (i + offset)·frequency(k); an odd
/// last coordinate and those past rotaryDim stay. `transpose` applies the transposed rotation
/// (by minus the angle), as the reverse pass needs.
template <class T>
void applyRope(Matrix<T>& x, const PositionalSpec& spec, long offset, bool transpose = false);

/// The ALiBi slope m of head `head` (0-based) out of `heads`: the given one, else the paper's:
/// 2^(-8k/h), k = 1..h, when h is a power of two; otherwise those of the power of two
/// h' below h, followed by every other slope of 2h' (BLOOM's and the ALiBi reference code's).
template <class T>
T alibiSlope(const PositionalSpec& spec, int head, int heads);

/// The additive ALiBi bias of head `head` (0-based) out of `heads` for n positions.
template <class T>
Matrix<T> alibiBias(const PositionalSpec& spec, int n, int head, int heads);

} // namespace attnlab
