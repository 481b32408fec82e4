// SPDX-License-Identifier: GPL-3.0-or-later
// Process-wide settings a program applies first thing in main: how the allocator keeps freed
// memory and how idle worker threads wait. Measured with the explorer's edit benchmark
// (docs/performance.md).
#pragma once

namespace attnlab {

/// Lets the allocator serve blocks of up to 32 MiB from its heaps and keep up to 256 MiB free
/// there, instead of mapping each large block afresh and handing free memory back to the kernel
/// at once. With glibc's defaults (thresholds of 128 KiB that grow only as blocks are freed),
/// every forward of a check's sweep faulted in fresh zeroed pages: 80 000 page faults in a run
/// of attnlab-check-bench, 7 200 with this (`/usr/bin/time -f %R`). A kernel call at n = 65536
/// frees four 16 MiB blocks at once: with 64 MiB kept, each call faulted in 70 MiB afresh (18 000
/// page faults, `perf stat -e page-faults`), with 256 MiB none after the first. Does nothing where
/// the allocator is not glibc's.
void keepFreedMemoryForReuse();

/// Makes idle OpenMP threads sleep at once instead of spinning for the next parallel loop, so
/// that between a check's loops the cores go to the GUI thread (two cores: the edit benchmark's
/// median went from 45-46 to 42 ms). libgomp reads OMP_WAIT_POLICY when it is loaded, before
/// main, so this sets it and executes the program again with the same arguments (children it
/// starts inherit the setting); it returns at once when OMP_WAIT_POLICY is already set (the
/// user's choice, or the restarted process), when the program was not started directly (through
/// the dynamic loader), and when restarting fails. Linux with OpenMP only; elsewhere it does
/// nothing.
void restartWithIdleThreadsSleeping(char** argv);

} // namespace attnlab
