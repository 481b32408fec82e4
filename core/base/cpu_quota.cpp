// Reading the control group's CPU quota (cpu_quota.h).
#include "core/base/cpu_quota.h"

#include <algorithm>
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

// The smallest quota on the way from the process's group up to the hierarchy's root: a quota set
// on a parent group holds for its children too. (Inside a container the container's group is
// mounted as the root, and /proc/self/cgroup may name a host path that is not there.)
template <class QuotaIn>
std::optional<int> smallestQuotaUpFrom(std::string path, QuotaIn quotaIn) {
    std::optional<int> smallest;
    for (;;) {
        if (const std::optional<int> q = quotaIn(path); q && (!smallest || *q < *smallest))
            smallest = q;
        if (path.empty() || path == "/") return smallest;
        const auto slash = path.rfind('/');
        path.erase(slash == std::string::npos ? 0 : slash);
    }
}

std::optional<int> readQuota() {
    const std::optional<int> v2 = smallestQuotaUpFrom(groupPath(""), [](const std::string& g) {
        const std::string line = firstLine(("/sys/fs/cgroup" + g + "/cpu.max").c_str());
        const auto space = line.find(' '); // "<quota|max> <period>"
        if (space == std::string::npos) return std::optional<int>();
        return quotaProcessors(std::string_view(line).substr(0, space),
                               std::string_view(line).substr(space + 1));
    });
    if (v2) return v2;
    return smallestQuotaUpFrom(groupPath("cpu"), [](const std::string& g) {
        const std::string dir = "/sys/fs/cgroup/cpu" + g;
        return quotaProcessors(firstLine((dir + "/cpu.cfs_quota_us").c_str()),
                               firstLine((dir + "/cpu.cfs_period_us").c_str()));
    });
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
