// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the cycle-notation parser: the first byte chooses n in 0..63, the rest is the text. An
// accepted permutation prints as cycles that parse back to the same permutation.
#include "fuzz_support.h"

#include "core/spec/permutation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnlab;
    if (size == 0) return 0;
    const int n = data[0] % 64;
    const std::string_view input = fuzz::text(data + 1, size - 1);
    Permutation sigma;
    try {
        sigma = Permutation::fromCycles(input, n);
    } catch (const InputError&) {
        return 0;
    }
    if (sigma.size() != n) fuzz::finding("the permutation has the wrong size", input);
    const std::string cycles = sigma.cycles();
    try {
        if (!(Permutation::fromCycles(cycles, n) == sigma))
            fuzz::finding("cycles() '" + cycles + "' reads back as another permutation", input);
    } catch (const InputError& e) {
        fuzz::finding("cycles() '" + cycles + "' is refused: " + e.what(), input);
    }
    return 0;
}
