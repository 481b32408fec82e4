// SPDX-License-Identifier: GPL-3.0-or-later
// Positional tables, RoPE rotation and ALiBi bias in each scalar type.
#include "core/spec/positional.h"

#include "core/base/error.h"
#include "core/base/random.h"
#include "core/spec/matrix_spec.h"

namespace attnlab {

bool isValidRopeBase(double base) {
    return base > 1;
}

std::string PositionalSpec::describe() const {
    std::string name;
    switch (kind) {
    case Kind::None:
        name = "none";
        break;
    case Kind::Polynomial:
        name = "polynomial";
        break;
    case Kind::Sinusoidal:
        name = "sinusoidal";
        break;
    case Kind::Learned:
        name = "learned";
        break;
    case Kind::Rope:
        name = "rope";
        break;
    case Kind::Alibi:
        name = causal ? "alibi (causal)" : "alibi";
        break;
    }
    if (offset != 0) name += ", offset " + std::to_string(offset);
    return name;
}

namespace {
// The paper's slope of head `head` of `heads` is 2^(-8·k/h) for this k and h (see alibiSlope).
std::pair<int, int> defaultSlopeExponent(int head, int heads) {
    int below = 1; // the largest power of two not above `heads`
    while (below * 2 <= heads)
        below *= 2;
    if (head < below) return {head + 1, below};
    return {2 * (head - below) + 1, 2 * below}; // every other slope of 2·below
}

// 2^(-8k/h) when it is rational (8k divisible by h), for exact mode.
bool exactDefaultSlope(int k, int h, Rational& out) {
    if ((8 * k) % h != 0) return false;
    out = Rational(1, 1);
    out /= integerPower(Rational(2), (8 * k) / h);
    return true;
}

template <class T>
T slopeOf(const PositionalSpec& spec, int head, int heads) {
    if (!spec.slopes.empty()) {
        if (static_cast<int>(spec.slopes.size()) != heads)
            throw InputError("positional.slopes: " + std::to_string(spec.slopes.size()) +
                             " slopes given for " + std::to_string(heads) + " heads");
        try {
            return ScalarOps<T>::fromRational(spec.slopes[static_cast<std::size_t>(head)]);
        } catch (const InputError& e) {
            throw InputError("positional.slopes[" + std::to_string(head) + "]", e.what());
        }
    }
    const auto [k, h] = defaultSlopeExponent(head, heads);
    if constexpr (ScalarOps<T>::exact) {
        Rational slope;
        if (!exactDefaultSlope(k, h, slope))
            throw InputError("precision exact: ALiBi default slope 2^(-8·" + std::to_string(k) +
                             "/" + std::to_string(h) + ") of head " + std::to_string(head) +
                             " is irrational for " + std::to_string(heads) +
                             " heads; give \"slopes\"");
        return slope;
    } else {
        return static_cast<T>(std::pow(2.0, -8.0 * k / h));
    }
}
} // namespace

void PositionalSpec::checkPrecision(Precision precision, int heads) const {
    if (precision != Precision::Exact) return;
    if (kind == Kind::Sinusoidal)
        throw InputError("precision exact: positional sinusoidal needs sin and cos; use "
                         "polynomial, learned, alibi or a float precision");
    if (kind == Kind::Rope)
        throw InputError("precision exact: positional rope needs sin and cos; use polynomial, "
                         "learned, alibi or a float precision");
    if (kind == Kind::Alibi && slopes.empty())
        for (int head = 0; head < heads; ++head)
            (void)slopeOf<Rational>(*this, head, heads);
}

bool PositionalSpec::operator==(const PositionalSpec& o) const {
    return kind == o.kind && offset == o.offset && seeded == o.seeded && seed == o.seed &&
           table == o.table && base == o.base && style == o.style && rotaryDim == o.rotaryDim &&
           scaling == o.scaling && slopes == o.slopes && causal == o.causal;
}

template <class T>
Matrix<T> absolutePositions(const PositionalSpec& spec, int n, int d) {
    using Ops = ScalarOps<T>;
    Matrix<T> pe = Matrix<T>::Zero(n, d);
    switch (spec.kind) {
    case PositionalSpec::Kind::Polynomial:
        if (d != 3)
            throw InputError("positional polynomial adds (i, i², 1) and needs d = 3, got d = " +
                             std::to_string(d));
        for (int i = 0; i < n; ++i) {
            const T p = T(i + spec.offset);
            pe(i, 0) = p;
            pe(i, 1) = p * p;
            pe(i, 2) = T(1);
        }
        break;
    case PositionalSpec::Kind::Sinusoidal:
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < d; ++j) {
                const int k = j / 2;
                const T angle = Ops::fromDouble(static_cast<double>(i + spec.offset) /
                                                std::pow(10000.0, 2.0 * k / d));
                pe(i, j) = j % 2 == 0 ? Ops::sin(angle, "positional sinusoidal")
                                      : Ops::cos(angle, "positional sinusoidal");
            }
        break;
    case PositionalSpec::Kind::Learned:
        if (spec.offset < 0)
            throw InputError("positional.offset: a learned table has no negative positions "
                             "(offset " +
                             std::to_string(spec.offset) + ")");
        if (spec.seeded) {
            // Rows for positions offset..offset+n-1 of one long seeded table.
            const Matrix<T> full =
                MatrixSpec::random(spec.seed).materialize<T>(n + int(spec.offset), d);
            pe = full.bottomRows(n);
        } else {
            const int rows = spec.table.fixedRows(), cols = spec.table.fixedCols();
            if (rows < n + spec.offset || cols != d)
                throw InputError("positional.table: is " + std::to_string(rows) + " x " +
                                 std::to_string(cols) + ", needs at least " +
                                 std::to_string(n + spec.offset) + " x " + std::to_string(d));
            try {
                pe = spec.table.materialize<T>(rows, cols).middleRows(spec.offset, n);
            } catch (const InputError& e) {
                throw InputError("positional.table", e.what());
            }
        }
        break;
    default:
        break;
    }
    return pe;
}

std::vector<double> ropeFrequencies(const PositionalSpec& spec, int p) {
    const int r = spec.rotaryDim > 0 ? spec.rotaryDim : p;
    if (r > p)
        throw InputError("positional.rotary_dim: " + std::to_string(r) + " is wider than a head (" +
                         std::to_string(p) + ")");
    const RopeScaling& scaling = spec.scaling;
    std::vector<double> frequencies;
    for (int k = 0; 2 * k + 1 < r; ++k) {
        double f = std::pow(spec.base, -2.0 * k / r);
        if (scaling.kind == RopeScaling::Kind::Linear) f /= scaling.factor;
        if (scaling.kind == RopeScaling::Kind::Llama3) {
            const double wavelength = 2 * M_PI / f;
            const double longest = scaling.originalContext / scaling.lowFrequencyFactor;
            const double shortest = scaling.originalContext / scaling.highFrequencyFactor;
            if (wavelength > longest) {
                f /= scaling.factor;
            } else if (wavelength >= shortest) {
                const double smooth =
                    (scaling.originalContext / wavelength - scaling.lowFrequencyFactor) /
                    (scaling.highFrequencyFactor - scaling.lowFrequencyFactor);
                f = (1 - smooth) * f / scaling.factor + smooth * f;
            }
        }
        frequencies.push_back(f);
    }
    return frequencies;
}

template <class T>
void applyRope(Matrix<T>& x, const PositionalSpec& spec, long offset, bool transpose) {
    using Ops = ScalarOps<T>;
    const std::vector<double> frequencies = ropeFrequencies(spec, int(x.cols()));
    const auto pairs = Eigen::Index(frequencies.size());
    const bool half = spec.style == PositionalSpec::RopeStyle::Half;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (Eigen::Index k = 0; k < pairs; ++k) {
            const T phi = Ops::fromDouble(double(i + offset) * frequencies[std::size_t(k)]);
            const T c = Ops::cos(phi, "positional rope");
            const T s =
                transpose ? T(-Ops::sin(phi, "positional rope")) : Ops::sin(phi, "positional rope");
            const Eigen::Index first = half ? k : 2 * k, second = half ? k + pairs : 2 * k + 1;
            const T a = x(i, first), b = x(i, second);
            x(i, first) = a * c - b * s;
            x(i, second) = a * s + b * c;
        }
}

template <class T>
T alibiSlope(const PositionalSpec& spec, int head, int heads) {
    return slopeOf<T>(spec, head, heads);
}

template <class T>
Matrix<T> alibiBias(const PositionalSpec& spec, int n, int head, int heads) {
    const T m = slopeOf<T>(spec, head, heads);
    Matrix<T> bias(n, n);
    for (int s = 0; s < n; ++s)
        for (int t = 0; t < n; ++t)
            bias(s, t) = -m * T(spec.causal ? s - t : std::abs(s - t));
    return bias;
}

#define ATTNLAB_INSTANTIATE(T)                                                                     \
    template Matrix<T> absolutePositions<T>(const PositionalSpec&, int, int);                      \
    template void applyRope<T>(Matrix<T>&, const PositionalSpec&, long, bool);                     \
    template T alibiSlope<T>(const PositionalSpec&, int, int);                                     \
    template Matrix<T> alibiBias<T>(const PositionalSpec&, int, int, int);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
ATTNLAB_INSTANTIATE(Rational)
#undef ATTNLAB_INSTANTIATE

} // namespace attnlab
