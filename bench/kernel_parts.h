// The fused CPU kernel's parts timed alone (kernel_parts_bench.cpp, compiled for one variant of
// the kernels), called by kernel_parts_main.cpp once the processor is known to run it.
#pragma once

/// Times the parts and prints them; the exit status.
int runKernelParts(int argc, char** argv);
