// SPDX-License-Identifier: GPL-3.0-or-later
// The processors' time a process may use under a Linux control group's CPU quota. A container
// started with `--cpus=2` on a 64-processor host sees 64 processors but gets the time of 2;
// OpenMP counts processors, and 64 threads sharing the time of 2 wait for each other at every
// barrier. The CPU kernels and the checks' sweeps start no more threads than the quota
// (base/parallel.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attnlab {

/// Whole processors (rounded up, at least 1) of a quota of `quota` microseconds per `period`:
/// cgroup v2's cpu.max holds both ("200000 100000": 2), cgroup v1 has cpu.cfs_quota_us and
/// cpu.cfs_period_us. No quota ("max", "-1") or text that is not two positive integers: none.
std::optional<int> quotaProcessors(std::string_view quota, std::string_view period);

/// The quota of a process whose /proc/<pid>/cgroup reads `groups`, with the control group file
/// systems under `root`: the smallest on the way from its group up to the root (a parent's quota
/// binds its children), in cgroup v2's cpu.max, else in v1's files under `root`/cpu. A group
/// that is not there (inside a container /proc names the host's path) is skipped. None where no
/// quota is set or nothing can be read.
std::optional<int> quotaProcessorsIn(std::string_view groups, const std::string& root);

/// This process's quota (/proc/self/cgroup, /sys/fs/cgroup), read once.
std::optional<int> cpuQuotaProcessors();

} // namespace attnlab
