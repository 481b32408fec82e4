// SPDX-License-Identifier: GPL-3.0-or-later
// Encoding mask expressions as kernel programs, and the CPU evaluation of the shared evaluator.
#include "core/backend/mask_program.h"

#include <algorithm>

namespace attnlab {

namespace kernel {
#define ATTNLAB_FN inline
#define ATTNLAB_GCONST const
#include "core/backend/shared/mask_eval.inc"
#undef ATTNLAB_FN
#undef ATTNLAB_GCONST
} // namespace kernel

int maskStackDepth(const MaskSpec& mask) {
    int depth = 1, pushed = 0;
    for (const MaskSpec& operand : mask.operands) {
        depth = std::max(depth, pushed + maskStackDepth(operand));
        ++pushed;
    }
    return std::max(depth, pushed);
}

namespace {

void emit(MaskProgram& program, int op, int a = 0, int b = 0) {
    program.code.insert(program.code.end(), {op, a, b});
}

void encodeInto(MaskProgram& program, const MaskSpec& mask, int n) {
    for (const MaskSpec& operand : mask.operands)
        encodeInto(program, operand, n);
    using Kind = MaskSpec::Kind;
    switch (mask.kind) {
    case Kind::All:
        return emit(program, ATTNLAB_MASK_ALL);
    case Kind::None:
        return emit(program, ATTNLAB_MASK_NONE);
    case Kind::Causal:
        return emit(program, ATTNLAB_MASK_CAUSAL);
    case Kind::Window:
        return emit(program, ATTNLAB_MASK_WINDOW, mask.radius);
    case Kind::CausalWindow:
        return emit(program, ATTNLAB_MASK_CAUSAL_WINDOW, mask.radius);
    case Kind::Prefix:
        return emit(program, ATTNLAB_MASK_PREFIX, mask.length);
    case Kind::Dilated:
        return emit(program, ATTNLAB_MASK_DILATED, mask.radius, mask.dilation);
    case Kind::Global:
        return emit(program, ATTNLAB_MASK_GLOBAL, mask.count);
    case Kind::Not:
        return emit(program, ATTNLAB_MASK_NOT);
    case Kind::And:
    case Kind::Or:
        return emit(program, mask.kind == Kind::And ? ATTNLAB_MASK_AND : ATTNLAB_MASK_OR,
                    int(mask.operands.size()));
    case Kind::Blocks: {
        const int offset = int(program.data.size());
        int end = 0;
        for (int size : mask.sizes)
            program.data.push_back(end += size);
        return emit(program, ATTNLAB_MASK_BLOCKS, offset, int(mask.sizes.size()));
    }
    case Kind::Custom: {
        const int offset = int(program.data.size()), words = (n + 31) / 32;
        program.data.resize(program.data.size() + std::size_t(n) * std::size_t(words), 0);
        for (int s = 0; s < n; ++s)
            for (int t = 0; t < n; ++t)
                if (mask.cells(s, t))
                    program.data[std::size_t(offset + s * words + t / 32)] |= int(1u << (t % 32));
        return emit(program, ATTNLAB_MASK_CUSTOM, offset, words);
    }
    }
}

} // namespace

MaskProgram encodeMask(const MaskSpec& mask, int n) {
    mask.validate(n);
    MaskProgram program;
    encodeInto(program, mask, n);
    program.depth = maskStackDepth(mask);
    if (program.data.empty()) program.data.push_back(0); // kernels get a non-empty buffer
    return program;
}

bool maskProgramAllows(const MaskProgram& program, int s, int t) {
    return kernel::attnlab_mask_allows(program.code.data(), int(program.code.size()),
                                       program.data.data(), s, t) != 0;
}

} // namespace attnlab
