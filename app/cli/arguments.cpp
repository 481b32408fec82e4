// SPDX-License-Identifier: GPL-3.0-or-later
// Arguments: parsing and validation of one subcommand's arguments.
#include "arguments.h"

#include "core/backend/registry.h"
#include "core/base/error.h"

#include <algorithm>

namespace attnlab::cli {

Arguments::Arguments(const std::vector<std::string>& args, std::vector<std::string> flags,
                     std::vector<std::string> options) {
    auto contains = [](const std::vector<std::string>& list, const std::string& s) {
        return std::find(list.begin(), list.end(), s) != list.end();
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg == "--help" || arg == "-h") {
            help_ = true;
            continue;
        }
        if (arg.rfind("--", 0) != 0 || arg == "--") {
            positionals_.push_back(arg);
            continue;
        }
        std::optional<std::string> inlineValue;
        if (auto eq = arg.find('='); eq != std::string::npos) {
            inlineValue = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
        }
        if (contains(flags, arg)) {
            if (inlineValue) throw UsageError(arg + " takes no value");
            flagsGiven_.push_back(arg);
        } else if (contains(options, arg)) {
            if (!inlineValue && i + 1 >= args.size()) throw UsageError(arg + " needs a value");
            values_[arg].push_back(inlineValue ? *inlineValue : args[++i]);
        } else {
            throw UsageError("unknown option " + arg);
        }
    }
}

bool Arguments::flag(const std::string& name) const {
    return std::find(flagsGiven_.begin(), flagsGiven_.end(), name) != flagsGiven_.end();
}

std::optional<std::string> Arguments::option(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second.back();
}

std::vector<std::string> Arguments::all(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

long Arguments::integer(const std::string& name, long fallback, long lo, long hi) const {
    const auto text = option(name);
    if (!text) return fallback;
    std::size_t used = 0;
    long value = 0;
    try {
        value = std::stol(*text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text->size() || value < lo || value > hi)
        throw UsageError(name + " must be an integer in " + std::to_string(lo) + ".." +
                         std::to_string(hi) + ", got '" + *text + "'");
    return value;
}

void Arguments::expectPositionals(std::size_t count, const std::string& what) const {
    if (positionals_.size() < count) throw UsageError("missing " + what);
    if (positionals_.size() > count)
        throw UsageError("unexpected argument '" + positionals_[count] + "'");
}

BackendChoice backendOption(const Arguments& a) {
    const std::string name = a.option("--backend").value_or("auto");
    BackendChoice choice;
    try {
        choice = parseBackendChoice(name);
    } catch (const InputError&) {
        throw UsageError("--backend must be auto, cpu, opencl or cuda, or one of the last three "
                         "with a device index (cuda:1), got '" +
                         name + "'");
    }
    requireSelectable(choice);
    return choice;
}

} // namespace attnlab::cli
