// SPDX-License-Identifier: GPL-3.0-or-later
// Estimating memory and exact-arithmetic cost before computing.
#include "core/explore/resource_limits.h"

#include "core/base/error.h"

#include <cstdio>

namespace attnlab {

namespace {

std::uint64_t entryBytes(Precision p) {
    switch (p) {
    case Precision::Float32:
        return 4;
    case Precision::Float64:
        return 8;
    case Precision::Exact:
        break;
    }
    // An mpq_t (32 bytes) and the heap blocks of its numerator and denominator, with what the
    // products copy and keep meanwhile: `run` of one softmax_like head at d = 1 peaked at
    // 515 MB resident for n = 1000 and 1.85 GB for n = 2000, about 230 bytes per entry of its two
    // n x n maps (the 64 counted before let n = 8000 start on some 30 GB).
    return 256;
}

std::string gib(std::uint64_t bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f GiB", double(bytes) / double(1ull << 30));
    return buffer;
}

} // namespace

std::uint64_t mapBytes(const Scenario& s, int sides) {
    std::uint64_t heads = 0;
    for (const LayerSpec& layer : s.model.layers)
        heads += std::uint64_t(std::max(layer.heads, 1));
    const std::uint64_t n = std::uint64_t(std::max(s.n(), 0));
    return std::uint64_t(sides) * heads * 2 * n * n * entryBytes(s.precision);
}

void checkMapMemory(const Scenario& s, int sides) {
    const std::uint64_t bytes = mapBytes(s, sides);
    if (bytes > kMapMemoryLimit)
        throw InputError("keeping the scores and weights of " + std::to_string(sides) +
                         " pass(es) at n = " + std::to_string(s.n()) + " needs " + gib(bytes) +
                         " (limit " + gib(kMapMemoryLimit) +
                         "): use fewer tokens, heads or layers, or a run without maps");
}

double forwardMultiplyAdds(const Scenario& s) {
    // A matrix whose values fix its columns keeps them; identity and random ones keep the width.
    const auto cols = [](const MatrixSpec& m, double width) {
        return m.fixedCols() >= 0 ? double(m.fixedCols()) : width;
    };
    const double n = s.n();
    double width = s.d(), perToken = 0, attention = 0;
    for (const LayerSpec& layer : s.model.layers) {
        if (layer.ffn) perToken += width * width;
        const double q = cols(layer.wq, width), k = cols(layer.wk, width),
                     v = cols(layer.wv, width);
        perToken += width * (q + k + v);
        attention += n * n * (q + v * layer.heads / layer.keyValueHeads());
        double out = v * layer.heads / layer.keyValueHeads();
        if (layer.wo) {
            const double o = cols(*layer.wo, width);
            perToken += out * o;
            out = o;
        }
        if (layer.mlp) {
            const double hidden = cols(layer.mlp->up, out);
            perToken += out * hidden * (layer.mlp->gate ? 3 : 2);
        }
        width = out;
    }
    return n * perToken + attention;
}

bool checksEveryPropertyOnEdit(const Scenario& s) {
    return double(s.n()) * forwardMultiplyAdds(s) <= kEveryCheckBudget;
}

std::optional<std::string> exactCostWarning(const Scenario& s) {
    if (s.precision != Precision::Exact) return std::nullopt;
    // Each normalising layer divides by a sum of n terms and feeds the next: denominators grow
    // with the number of tokens times the depth; an ssm scan multiplies a^(s-t) along n steps.
    long work = 0;
    for (const LayerSpec& layer : s.model.layers)
        work += long(s.n()) * (layer.mixer.kind == MixerSpec::Kind::Ssm ? 2 : 1);
    work *= long(s.model.layers.size());
    if (work <= 256) return std::nullopt;
    return "exact arithmetic on " + std::to_string(s.n()) + " tokens through " +
           std::to_string(s.model.layers.size()) +
           " layer(s): the fractions can grow to thousands of digits and take long; "
           "checks can be cancelled (Esc), or switch to float64";
}

} // namespace attnlab
