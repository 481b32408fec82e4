// Process-wide settings a program applies first thing in main: how the allocator keeps freed
// memory and how idle worker threads wait. Measured with the explorer's edit benchmark (README,
// Performance).
#pragma once

namespace attnlab {

/// Lets the allocator keep 16 MiB of free memory at the top of each arena's heap instead of
/// handing it back to the kernel as soon as it is free (glibc keeps 128 KiB). The checks run
/// hundreds of forwards at n = 256 on the worker threads, each allocating and freeing its
/// matrices; with the default every forward faulted in fresh zeroed pages: 75 000 page faults
/// in the per-check benchmark against 6 900 with this. Does nothing where the allocator is not
/// glibc's.
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
