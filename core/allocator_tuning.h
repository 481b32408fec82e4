// How the program's allocator treats the matrices the checks allocate and free by the hundred.
#pragma once

namespace attnlab {

/// Lets the allocator keep 16 MiB of free memory at the top of each arena's heap instead of
/// handing it back to the kernel as soon as it is free (glibc keeps 128 KiB). The checks run
/// hundreds of forwards at n = 256 on the worker threads, each allocating and freeing its
/// matrices; with the default every forward faulted in fresh zeroed pages: 75 000 page faults
/// in the per-check benchmark against 6 900 with this (README, Performance). Call it once, first
/// thing in main; it does nothing where the allocator is not glibc's.
void keepFreedMemoryForReuse();

} // namespace attnlab
