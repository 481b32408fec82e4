// SPDX-License-Identifier: GPL-3.0-or-later
// A mask expression (mask.h) encoded for a kernel: a postfix program of (op, a, b) triples and a
// data array, evaluated per (query, key) by shared/mask_eval.inc, the same code on the CPU, in
// OpenCL and in CUDA. Structured kinds are a few integers; only `custom` carries its cells (one
// bit each), so no n x n matrix is uploaded for the others.
#pragma once

#include "core/spec/mask.h"

#include <vector>

namespace attnlab {

struct MaskProgram {
    std::vector<int> code; // (op, a, b) triples, postfix
    std::vector<int> data; // block ends, custom bit rows
    int depth = 0;         // evaluation stack needed
};

/// The largest evaluation stack `mask` needs (kernels support up to kMaskStackLimit).
int maskStackDepth(const MaskSpec& mask);
/// The mask encoded for n tokens; validates it first (throws InputError like buildMask).
MaskProgram encodeMask(const MaskSpec& mask, int n);
/// Evaluates the program for query s and key t on the CPU (the kernels' exact logic).
bool maskProgramAllows(const MaskProgram& program, int s, int t);

} // namespace attnlab
