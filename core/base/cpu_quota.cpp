// SPDX-License-Identifier: GPL-3.0-or-later
// Reading the control group's CPU quota (cpu_quota.h).
#include "core/base/cpu_quota.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
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

std::string firstLine(const std::string& path) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return line;
}

// A process's group in one hierarchy, from the text of its /proc/<pid>/cgroup: "0::/a/b" for
// cgroup v2 (`controller` empty), "4:cpu,cpuacct:/a/b" for v1's cpu controller. "/" if absent.
std::string groupPath(std::string_view groups, std::string_view controller) {
    while (!groups.empty()) {
        const auto newline = groups.find('\n');
        const std::string_view line = groups.substr(0, newline);
        groups =
            newline == std::string_view::npos ? std::string_view() : groups.substr(newline + 1);
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string_view::npos || second == std::string_view::npos) continue;
        const std::string controllers(line.substr(first + 1, second - first - 1));
        const bool match =
            controller.empty()
                ? controllers.empty()
                : (',' + controllers + ',').find(',' + std::string(controller) + ',') !=
                      std::string::npos;
        if (match) return std::string(line.substr(second + 1));
    }
    return "/";
}

// The smallest of quotaIn(group) from `path` up to the root, "/a/b", "/a", "" (quotaProcessorsIn).
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

} // namespace

std::optional<int> quotaProcessors(std::string_view quota, std::string_view period) {
    const std::optional<long long> q = positive(quota), p = positive(period);
    if (!q || !p) return {};
    return int(std::max(1LL, (*q + *p - 1) / *p));
}

std::optional<int> quotaProcessorsIn(std::string_view groups, const std::string& root) {
    const std::optional<int> v2 =
        smallestQuotaUpFrom(groupPath(groups, ""), [&](const std::string& g) {
            const std::string line = firstLine(root + g + "/cpu.max");
            const auto space = line.find(' '); // "<quota|max> <period>"
            if (space == std::string::npos) return std::optional<int>();
            return quotaProcessors(std::string_view(line).substr(0, space),
                                   std::string_view(line).substr(space + 1));
        });
    if (v2) return v2;
    return smallestQuotaUpFrom(groupPath(groups, "cpu"), [&](const std::string& g) {
        const std::string dir = root + "/cpu" + g;
        return quotaProcessors(firstLine(dir + "/cpu.cfs_quota_us"),
                               firstLine(dir + "/cpu.cfs_period_us"));
    });
}

std::optional<int> cpuQuotaProcessors() {
    static const std::optional<int> quota = [] {
        std::ifstream file("/proc/self/cgroup");
        const std::string groups{std::istreambuf_iterator<char>(file), {}};
        return quotaProcessorsIn(groups, "/sys/fs/cgroup");
    }();
    return quota;
}

} // namespace attnlab
