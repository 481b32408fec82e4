// SPDX-License-Identifier: GPL-3.0-or-later
// Permutation: validation, algebra and cycle notation.
#include "core/spec/permutation.h"

#include "core/base/error.h"
#include "core/base/random.h"

#include <numeric>
#include <sstream>

namespace attnlab {

Permutation::Permutation(std::vector<int> images) : images_(std::move(images)) {
    const int n = size();
    std::vector<bool> seen(images_.size(), false);
    for (int i = 0; i < n; ++i) {
        const int v = images_[static_cast<std::size_t>(i)];
        if (v < 0 || v >= n)
            throw InputError("entry " + std::to_string(i) + " is " + std::to_string(v) +
                             ", outside 0.." + std::to_string(n - 1) + " (not a bijection)");
        if (seen[static_cast<std::size_t>(v)])
            throw InputError(std::to_string(v) + " appears twice (not a bijection of 0.." +
                             std::to_string(n - 1) + ")");
        seen[static_cast<std::size_t>(v)] = true;
    }
}

Permutation Permutation::identity(int n) {
    std::vector<int> images(static_cast<std::size_t>(n));
    std::iota(images.begin(), images.end(), 0);
    return Permutation(std::move(images));
}

Permutation Permutation::reverse(int n) {
    std::vector<int> images(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        images[static_cast<std::size_t>(i)] = n - 1 - i;
    return Permutation(std::move(images));
}

Permutation Permutation::random(int n, std::uint64_t seed) {
    std::vector<int> images = identity(n).images_;
    SplitMix64 rng(seed);
    for (int i = n - 1; i > 0; --i) // Fisher–Yates
        std::swap(images[static_cast<std::size_t>(i)],
                  images[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
    return Permutation(std::move(images));
}

Permutation Permutation::transposition(int n, int i, int j) {
    std::vector<int> images = identity(n).images_;
    std::swap(images.at(static_cast<std::size_t>(i)), images.at(static_cast<std::size_t>(j)));
    return Permutation(std::move(images));
}

Permutation Permutation::fromCycles(std::string_view text, int n) {
    std::vector<int> images = identity(n).images_;
    std::vector<bool> used(static_cast<std::size_t>(n), false);
    std::size_t pos = 0;
    auto skipSpace = [&] {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
            ++pos;
    };
    auto fail = [&](const std::string& why) -> void {
        throw InputError("cycle notation '" + std::string(text) + "': " + why);
    };
    skipSpace();
    while (pos < text.size()) {
        if (text[pos] != '(') fail("expected '(' at position " + std::to_string(pos));
        ++pos;
        std::vector<int> cycle;
        for (;;) {
            skipSpace();
            if (pos >= text.size()) fail("missing ')'");
            if (text[pos] == ')') break;
            if (text[pos] == ',') {
                ++pos;
                continue;
            }
            std::size_t start = pos;
            while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
                ++pos;
            if (start == pos || pos - start > 9)
                fail("expected an index at position " + std::to_string(start));
            const int v = std::stoi(std::string(text.substr(start, pos - start)));
            if (v >= n) fail(std::to_string(v) + " is outside 0.." + std::to_string(n - 1));
            if (used[static_cast<std::size_t>(v)]) fail(std::to_string(v) + " appears twice");
            used[static_cast<std::size_t>(v)] = true;
            cycle.push_back(v);
        }
        ++pos;
        for (std::size_t k = 0; k < cycle.size(); ++k)
            images[static_cast<std::size_t>(cycle[k])] = cycle[(k + 1) % cycle.size()];
        skipSpace();
    }
    return Permutation(std::move(images));
}

bool Permutation::isIdentity() const {
    for (int i = 0; i < size(); ++i)
        if ((*this)(i) != i) return false;
    return true;
}

Permutation Permutation::compose(const Permutation& tau) const {
    if (tau.size() != size())
        throw InputError("cannot compose permutations of sizes " + std::to_string(size()) +
                         " and " + std::to_string(tau.size()));
    std::vector<int> images(images_.size());
    for (int i = 0; i < size(); ++i)
        images[static_cast<std::size_t>(i)] = (*this)(tau(i));
    return Permutation(std::move(images));
}

Permutation Permutation::inverse() const {
    std::vector<int> images(images_.size());
    for (int i = 0; i < size(); ++i)
        images[static_cast<std::size_t>((*this)(i))] = i;
    return Permutation(std::move(images));
}

std::string Permutation::cycles() const {
    std::ostringstream out;
    std::vector<bool> done(images_.size(), false);
    for (int start = 0; start < size(); ++start) {
        if (done[static_cast<std::size_t>(start)] || (*this)(start) == start) continue;
        out << '(';
        for (int i = start; !done[static_cast<std::size_t>(i)]; i = (*this)(i)) {
            if (i != start) out << ' ';
            out << i;
            done[static_cast<std::size_t>(i)] = true;
        }
        out << ')';
    }
    const std::string text = out.str();
    return text.empty() ? "()" : text;
}

void Permutation::checkSize(int count, const char* what) const {
    if (count != size())
        throw InputError("permutation of size " + std::to_string(size()) +
                         " applied to a matrix with " + std::to_string(count) + " " + what);
}

} // namespace attnlab
