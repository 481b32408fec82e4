// `attnlab-cli devices`: every backend and device with its features.
#include "arguments.h"
#include "commands.h"

#include "backend/device.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace attnlab::cli {

std::string devicesUsage() {
    return "usage: attnlab-cli devices [--json]\n\n"
           "Lists every backend compiled into this build and its devices (name, type, memory,\n"
           "features). The CPU is always present.\n\n"
           "  --json   print {\"devices\": [{\"backend\", \"name\", \"type\", \"memory_bytes\", "
           "\"features\"}]}\n";
}

int devicesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
    const Arguments a(args, {"--json"}, {});
    if (a.help()) {
        out << devicesUsage();
        return 0;
    }
    a.expectPositionals(0, "");
    const auto devices = listDevices();
    if (a.flag("--json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& d : devices)
            list.push_back({{"backend", d.backend},
                            {"name", d.name},
                            {"type", d.type},
                            {"memory_bytes", d.memoryBytes},
                            {"features", d.features}});
        out << nlohmann::json{{"devices", list}}.dump(2) << "\n";
        return 0;
    }
    for (const auto& d : devices) {
        out << d.backend << ": " << d.name << " (" << d.type << ", "
            << d.memoryBytes / (1024 * 1024) << " MiB)\n  features:";
        for (const auto& f : d.features)
            out << " " << f;
        out << "\n";
    }
    out << "(OpenCL and CUDA backends are not built into this version)\n";
    return 0;
}

} // namespace attnlab::cli
