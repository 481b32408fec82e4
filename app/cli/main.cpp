// SPDX-License-Identifier: GPL-3.0-or-later
// attnlab-cli: the headless face of the AttnLab core (cli.md). Dispatches to a subcommand and
// turns errors into messages and exit statuses (2 for bad input or usage); --version prints the
// project version.
#include "arguments.h"
#include "commands.h"
#include "core/base/process_tuning.h"

#include "app/version.h"

#include "core/base/error.h"

#include <iostream>

using namespace attnlab::cli;

namespace {

const Command kCommands[] = {
    {"run", "compute a scenario (and its permuted input) and print the traces", runUsage,
     runCommand},
    {"check", "check properties (equivariance, locality, ...) on the scenario's numbers",
     checkUsage, checkCommand},
    {"probe", "check another program's attention as a black box (masks, batches, prefixes)",
     probeUsage, probeCommand},
    {"import", "write a scenario of a Hugging Face checkpoint on some text or token ids",
     importUsage, importCommand},
    {"presets", "list the built-in scenarios (open one as builtin:NAME)", presetsUsage,
     presetsCommand},
    {"bench", "time the CPU attention kernel against the machine's measured peak", benchUsage,
     benchCommand},
    {"devices", "list the backends and devices this build can use", devicesUsage, devicesCommand},
};

void printMainHelp(std::ostream& out) {
    out << "usage: attnlab-cli COMMAND [options]   (attnlab-cli COMMAND --help for details)\n\n"
           "Explore the mathematical properties of transformer attention, headless.\n\n"
           "commands:\n";
    for (const Command& c : kCommands)
        out << "  " << c.name << std::string(10 - std::string(c.name).size(), ' ') << c.summary
            << "\n";
    out << "\noptions:\n"
           "  -h, --help    print this help\n"
           "  --version     print the version\n";
    out << "\nexit status: 0 success, 1 a checked property fails, 2 bad input or usage\n";
}

} // namespace

int main(int argc, char** argv) {
    attnlab::keepFreedMemoryForReuse();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        printMainHelp(std::cerr);
        return 2;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        printMainHelp(std::cout);
        return 0;
    }
    if (args[0] == "--version") {
        std::cout << "attnlab-cli " << attnlab::kVersion << "\n";
        return 0;
    }
    for (const Command& c : kCommands) {
        if (args[0] != c.name) continue;
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        try {
            return c.run(rest, std::cout, std::cerr);
        } catch (const UsageError& e) {
            std::cerr << "attnlab-cli " << c.name << ": " << e.what() << "\n\n" << c.usage();
            return 2;
        } catch (const attnlab::InputError& e) {
            std::cerr << "attnlab-cli " << c.name << ": " << e.what() << "\n";
            return 2;
        } catch (const std::bad_alloc&) {
            std::cerr << "attnlab-cli " << c.name << ": out of memory for this input\n";
            return 2;
        } catch (const std::runtime_error& e) { // a device failing where nothing falls back
            std::cerr << "attnlab-cli " << c.name << ": " << e.what() << "\n";
            return 2;
        }
    }
    std::cerr << "attnlab-cli: unknown command '" << args[0] << "'\n\n";
    printMainHelp(std::cerr);
    return 2;
}
