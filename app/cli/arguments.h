// SPDX-License-Identifier: GPL-3.0-or-later
// A small, strict command-line parser for attnlab-cli subcommands: declared flags and options,
// positionals, `--help`; anything else is a usage error (exit status 2).
#pragma once

#include "core/spec/backend_choice.h"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::cli {

/// A usage error: the message says what is wrong; the command prints it with its usage line.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Arguments {
public:
    /// `flags` take no value (e.g. "--json"); `options` take one (e.g. "--backend"), and may
    /// repeat.
    Arguments(const std::vector<std::string>& args, std::vector<std::string> flags,
              std::vector<std::string> options);

    bool help() const { return help_; }
    bool flag(const std::string& name) const;
    std::optional<std::string> option(const std::string& name) const; // last value given
    std::vector<std::string> all(const std::string& name) const;      // every value given
    /// An integer option, or `fallback`; throws UsageError when not an integer in [lo, hi].
    long integer(const std::string& name, long fallback, long lo, long hi) const;
    const std::vector<std::string>& positionals() const { return positionals_; }
    /// Requires exactly `count` positionals, naming them in the error.
    void expectPositionals(std::size_t count, const std::string& what) const;

private:
    bool help_ = false;
    std::vector<std::string> positionals_;
    std::map<std::string, std::vector<std::string>> values_;
    std::vector<std::string> flagsGiven_;
};

/// The `--backend` option (default auto; `cuda:1` names a device): a usage error for an unknown
/// name, an InputError when the backend named is not compiled into this build or has no device
/// by that index.
BackendChoice backendOption(const Arguments& a);

} // namespace attnlab::cli
