// Reading the control group's CPU quota (cpu_quota.h).
#include "core/base/cpu_quota.h"

#include <charconv>
#include <fstream>
#include <string>

namespace attnlab {

namespace {

std::optional<long long> positive(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.remove_suffix(1);
    long long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value <= 0) return {};
    return value;
}

std::string firstLine(const char* path) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return line;
}

// The control group of this process in a hierarchy, from /proc/self/cgroup: "0::/a/b" for
// cgroup v2 (`controller` empty), "4:cpu,cpuacct:/a/b" for v1's cpu controller.
std::string groupPath(std::string_view controller) {
    std::ifstream file("/proc/self/cgroup");
    for (std::string line; std::getline(file, line);) {
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string_view controllers =
            std::string_view(line).substr(first + 1, second - first - 1);
        const bool match =
            controller.empty()
                ? controllers.empty()
                : (',' + std::string(controllers) + ',')
                          .find(',' + std::string(controller) + ',') != std::string::npos;
        if (match) return line.substr(second + 1);
    }
    return "/";
}

// The quota in the process's own group, else in the hierarchy's root (inside a container, the
// container's group is mounted as the root and /proc/self/cgroup may name the host's path).
std::optional<int> readQuota() {
    for (const std::string& dir :
         {"/sys/fs/cgroup" + groupPath(""), std::string("/sys/fs/cgroup")}) {
        const std::string v2 = firstLine((dir + "/cpu.max").c_str()); // "<quota|max> <period>"
        if (const auto space = v2.find(' '); space != std::string::npos)
            return quotaProcessors(std::string_view(v2).substr(0, space),
                                   std::string_view(v2).substr(space + 1));
    }
    for (const std::string& dir :
         {"/sys/fs/cgroup/cpu" + groupPath("cpu"), std::string("/sys/fs/cgroup/cpu")}) {
        const std::string quota = firstLine((dir + "/cpu.cfs_quota_us").c_str());
        if (!quota.empty())
            return quotaProcessors(quota, firstLine((dir + "/cpu.cfs_period_us").c_str()));
    }
    return {};
}

} // namespace

std::optional<int> quotaProcessors(std::string_view quota, std::string_view period) {
    const std::optional<long long> q = positive(quota), p = positive(period);
    if (!q || !p) return {};
    return int(std::max(1LL, (*q + *p - 1) / *p));
}

std::optional<int> cpuQuotaProcessors() {
    static const std::optional<int> quota = readQuota();
    return quota;
}

} // namespace attnlab
