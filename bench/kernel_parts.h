// SPDX-License-Identifier: GPL-3.0-or-later
// The fused CPU kernel's parts timed alone (kernel_parts_bench.cpp, compiled for one variant of
// the kernels), and its 2^x's accuracy (exp2_accuracy.cpp), called by kernel_parts_main.cpp once
// the processor is known to run it.
#pragma once

/// Times the parts and prints them, or with --exp2-accuracy runs runExp2Accuracy; the exit status.
int runKernelParts(int argc, char** argv);

/// The kernels' 2^x against exp2 (exp2_accuracy.cpp), every `every`-th float at shifts other than
/// 0; the exit status.
int runExp2Accuracy(long every);
