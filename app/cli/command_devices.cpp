// SPDX-License-Identifier: GPL-3.0-or-later
// `attnlab-cli devices`: every backend and device with its selector and features.
#include "arguments.h"
#include "commands.h"

#include "core/backend/registry.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace attnlab::cli {

std::string devicesUsage() {
    return "usage: attnlab-cli devices [--json]\n\n"
           "Lists every backend compiled into this build, what it computes on (or why it has no\n"
           "device), and its devices (selector, name, type, memory, features). The CPU is always\n"
           "present and last. A selector such as cuda:1 or opencl:0 is what --backend takes to\n"
           "compute on that device. `--backend auto` picks a CUDA GPU, then an OpenCL GPU or "
           "accelerator, then\n"
           "the CPU; an OpenCL CPU device (PoCL) runs only when asked for with --backend "
           "opencl.\n\n"
           "  --json   print {\"backends\": [{\"name\", \"status\", \"accelerates\"}],\n"
           "           \"devices\": [{\"backend\", \"name\", \"type\", \"memory_bytes\", "
           "\"features\"}],\n"
           "           \"not_built\": [names]}\n";
}

namespace {
// The backends this build was configured without.
std::vector<std::string> notBuilt() {
    std::vector<std::string> names;
    for (const char* name : {"cuda", "opencl"})
        if (!findBackend(name)) names.push_back(name);
    return names;
}
} // namespace

int devicesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
    const Arguments a(args, {"--json"}, {});
    if (a.help()) {
        out << devicesUsage();
        return 0;
    }
    a.expectPositionals(0, "");
    if (a.flag("--json")) {
        nlohmann::json backendList = nlohmann::json::array(), deviceList = nlohmann::json::array();
        for (const auto& b : backends()) {
            backendList.push_back(
                {{"name", b->name()}, {"status", b->status()}, {"accelerates", b->accelerates()}});
            for (const auto& device : b->devices()) {
                const DeviceInfo& d = device->info();
                deviceList.push_back({{"backend", d.backend},
                                      {"name", d.name},
                                      {"type", deviceKindName(d.kind)},
                                      {"memory_bytes", d.memoryBytes},
                                      {"features", d.features}});
            }
        }
        out << nlohmann::json{{"backends", backendList},
                              {"devices", deviceList},
                              {"not_built", notBuilt()}}
                   .dump(2)
            << "\n";
        return 0;
    }
    for (const std::string& name : notBuilt())
        out << name << " backend: not built into this version\n";
    for (const auto& b : backends()) {
        const auto& devices = b->devices();
        out << b->name() << " backend: " << devices.size() << " device(s); " << b->status() << "\n";
        for (const auto& device : devices) {
            const DeviceInfo& d = device->info();
            out << "  " << d.selector() << "  " << d.name << " (" << deviceKindName(d.kind) << ", "
                << d.memoryBytes / (1024 * 1024) << " MiB)\n    features:";
            for (const auto& f : d.features)
                out << " " << f;
            out << "\n";
        }
    }
    return 0;
}

} // namespace attnlab::cli
