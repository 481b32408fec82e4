// SPDX-License-Identifier: GPL-3.0-or-later
// Seeded pseudo-random numbers that are identical on every machine and compiler
// (std::normal_distribution is not), for generators, random weights and sampled checks.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

namespace attnlab {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Moves on as `count` calls of next() would, at once (the stream is a counter, mixed).
    void discard(std::uint64_t count) { state_ += count * 0x9e3779b97f4a7c15ULL; }
    /// Uniform integer in [0, bound).
    std::uint64_t below(std::uint64_t bound) { return next() % bound; }
    /// Uniform in (0, 1).
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
    /// Standard normal (Box–Muller).
    double normal() {
        const auto [r, angle] = boxMullerPolar();
        return r * std::cos(angle);
    }
    /// Two independent standard normals from the same two uniforms (Box–Muller's cosine and
    /// sine): half the logarithms and square roots of two normal() calls, and other numbers.
    std::pair<double, double> normalPair() {
        const auto [r, angle] = boxMullerPolar();
        return {r * std::cos(angle), r * std::sin(angle)};
    }
    /// Uniform integer in [lo, hi].
    int integer(int lo, int hi) {
        return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1)));
    }

private:
    /// Box–Muller's radius sqrt(-2 ln u) and angle 2πv from the next two uniforms.
    std::pair<double, double> boxMullerPolar() {
        const double u = uniform(), v = uniform();
        return {std::sqrt(-2.0 * std::log(u)), 6.283185307179586 * v};
    }

    std::uint64_t state_;
};

} // namespace attnlab
