// SPDX-License-Identifier: GPL-3.0-or-later
// Describing a transformation in words.
#include "core/spec/transform.h"

#include <filesystem>

namespace attnlab {

std::string Transform::describe(int n) const {
    switch (kind) {
    case Kind::Permutation:
        return "permutation";
    case Kind::Shift:
        return "shift by " + std::to_string(shift);
    case Kind::Decode: {
        const std::string how = !maskFile.empty()
                                    ? "mask " + std::filesystem::path(maskFile).filename().string()
                                    : alignmentName(alignment);
        return "decode " + std::to_string(queries) + (queries == 1 ? " query" : " queries") +
               " against a KV cache" + (n >= 0 ? " of " + std::to_string(n - queries) : "") + " (" +
               how + ")";
    }
    case Kind::Perturbation:
        break;
    }
    return "X[" + std::to_string(token) + "][" + std::to_string(feature) +
           "] += " + rationalText(delta);
}

} // namespace attnlab
