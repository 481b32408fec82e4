// SPDX-License-Identifier: GPL-3.0-or-later
// Names of backend choices and their parsing (`--backend`).
#include "core/spec/backend_choice.h"

#include "core/base/enum_names.h"
#include "core/base/error.h"

#include <charconv>

namespace attnlab {

namespace {
constexpr EnumName<BackendKind> kBackendKindNames[] = {{BackendKind::Auto, "auto"},
                                                       {BackendKind::Cpu, "cpu"},
                                                       {BackendKind::OpenCl, "opencl"},
                                                       {BackendKind::Cuda, "cuda"}};
} // namespace

std::string backendKindName(BackendKind kind) {
    return std::string(nameOf<BackendKind>(kBackendKindNames, kind));
}

std::string backendChoiceName(BackendChoice choice) {
    const std::string kind = backendKindName(choice.kind);
    return choice.device < 0 ? kind : kind + ":" + std::to_string(choice.device);
}

BackendChoice parseBackendChoice(std::string_view text) {
    const auto colon = text.find(':');
    const std::string_view kindText = text.substr(0, colon);
    if (const auto kind = valueOf<BackendKind>(kBackendKindNames, kindText)) {
        if (colon == std::string_view::npos) return *kind;
        const std::string_view index = text.substr(colon + 1);
        int device = -1;
        const auto [end, error] =
            std::from_chars(index.data(), index.data() + index.size(), device);
        const bool digitsOnly = !index.empty() && index.front() != '-' && index.front() != '+';
        if (*kind != BackendKind::Auto && digitsOnly && error == std::errc() &&
            end == index.data() + index.size())
            return {*kind, device};
    }
    throw InputError("backend: '" + std::string(text) +
                     "' is not auto, cpu, opencl or cuda, nor one of the last three with "
                     ":INDEX (cuda:1)");
}

} // namespace attnlab
