// The CPU device: what this machine reports about itself.
#include "core/backend/device.h"

#include <fstream>
#include <string>
#include <thread>

namespace attnlab {

namespace {
// The value after "key<tab>: " in a /proc file, or "" when absent.
std::string procField(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string value = line.substr(colon + 1);
                value.erase(0, value.find_first_not_of(" \t"));
                return value;
            }
        }
    return {};
}
} // namespace

DeviceInfo cpuDevice() {
    DeviceInfo cpu;
    cpu.backend = "cpu";
    cpu.type = "cpu";
    cpu.name = procField("/proc/cpuinfo", "model name");
    if (cpu.name.empty()) cpu.name = "CPU";
    const std::string mem = procField("/proc/meminfo", "MemTotal"); // "24576000 kB"
    if (!mem.empty()) cpu.memoryBytes = std::stoull(mem) * 1024ULL;
    cpu.features = {"threads=" + std::to_string(std::thread::hardware_concurrency()),
                    "float32",
                    "float64",
                    "exact",
                    "all mixers",
                    "all masks"};
    const std::string flags = procField("/proc/cpuinfo", "flags");
    for (const char* isa : {"avx2", "fma", "avx512f"})
        if ((" " + flags + " ").find(std::string(" ") + isa + " ") != std::string::npos)
            cpu.features.push_back(isa);
    return cpu;
}

} // namespace attnlab
