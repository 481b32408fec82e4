// The processors' time a process may use under a Linux control group's CPU quota. A container
// started with `--cpus=2` on a 64-processor host sees 64 processors but gets the time of 2;
// OpenMP counts processors, and 64 threads sharing the time of 2 wait for each other at every
// barrier. The CPU kernels and the checks' sweeps start no more threads than the quota
// (base/parallel.h).
#pragma once

#include <optional>
#include <string_view>

namespace attnlab {

/// Whole processors (rounded up, at least 1) of a quota of `quota` microseconds per `period`:
/// cgroup v2's cpu.max holds both ("200000 100000": 2), cgroup v1 has cpu.cfs_quota_us and
/// cpu.cfs_period_us. No quota ("max", "-1") or text that is not two positive integers: none.
std::optional<int> quotaProcessors(std::string_view quota, std::string_view period);

/// This process's quota, read once: the smallest on the way from its control group (named in
/// /proc/self/cgroup) up to the root, in cgroup v2's cpu.max, else in the cgroup v1 files
/// under /sys/fs/cgroup/cpu/. None where no quota is set or nothing can be read.
std::optional<int> cpuQuotaProcessors();

} // namespace attnlab
