// SPDX-License-Identifier: GPL-3.0-or-later
// The subcommands of attnlab-cli. Each returns the process exit status (0 success, 1 a check
// failed, 2 bad input or usage) and writes results to `out`, messages to `err`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace attnlab::cli {

struct Command {
    const char* name;
    const char* summary;
    std::string (*usage)(); // full --help text
    int (*run)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
};

int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int presetsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int checkCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int benchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int devicesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int importCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int probeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string runUsage();
std::string presetsUsage();
std::string devicesUsage();
std::string checkUsage();
std::string benchUsage();
std::string importUsage();
std::string probeUsage();

} // namespace attnlab::cli
