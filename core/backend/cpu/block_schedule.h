// SPDX-License-Identifier: GPL-3.0-or-later
// Inside the kernels: how the fused kernel deals its query blocks to tasks, which its threads
// take in order, one at a time (parallelFor: dynamically scheduled). Threads that run at
// different speeds (on a virtual machine, one core ran the query blocks of dense n = 4096 in
// 2.2-2.6 ms each while the other ran them in 1.4-1.8 ms) end a loop of equal tasks up to a whole
// task apart, one thread idle meanwhile: so the last tasks are small, runs of consecutive blocks
// shorter and the last blocks' rows split, and the threads end within a small task of each other. A
// block's rows give the same bits however they are split (each row's softmax and sums are its own).
#pragma once

#include <vector>

namespace attnlab::kernels {

/// One task of the fused kernel: positions first .. last - 1 of one head's list of the blocks it
/// computes, and of each of those blocks the rows rowBegin .. rowEnd - 1 counted from its first
/// (every row: 0 .. rowTile; a part of a block's rows only where first + 1 == last).
struct BlockTask {
    int head = 0;
    long first = 0, last = 0;
    int rowBegin = 0, rowEnd = 0;
};

/// The tasks for `heads` heads of `count` blocks each, in the order to run them: each head's
/// blocks in their order, every block's rows in exactly one task. Each task runs up to `run`
/// consecutive blocks of one head; on one thread, every task `run` blocks (the last of a head
/// fewer) of all `rowTile` rows. On more, tasks shrink towards the end (guided: about the work
/// left over twice the threads, at most `run`), and each of the last 2·threads blocks is split
/// into two parts of its rows, each of the last `threads` blocks into four, no part of fewer than
/// kMinTaskRows of the rowTile rows (fewer parts where rowTile is small). A part may hold fewer of
/// a block shorter than rowTile (the last of the sequence), or none: the kernel skips it.
std::vector<BlockTask> scheduleBlocks(int heads, long count, long run, int threads, int rowTile);

/// The fewest rows a task computes of a block it splits.
inline constexpr int kMinTaskRows = 16;

} // namespace attnlab::kernels
