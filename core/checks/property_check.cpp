// SPDX-License-Identifier: GPL-3.0-or-later
// The property-check interface's shared path (parameters, not applicable) and its help line.
#include "core/checks/property_check.h"

#include "core/base/error.h"

#include <algorithm>

namespace attnlab {

namespace {

// A report that does not apply to this scenario, saying why.
PropertyReport notApplicableReport(const std::string& name, const std::string& why) {
    PropertyReport r;
    r.name = name;
    r.verdict = Verdict::NotApplicable;
    r.explanation = why;
    return r;
}

} // namespace

bool PropertyCheck::declares(const std::string& parameter) const {
    const std::vector<CheckParameter> declared = parameters();
    return std::any_of(declared.begin(), declared.end(),
                       [&](const CheckParameter& p) { return p.name == parameter; });
}

PropertyReport PropertyCheck::run(const CheckRequest& request) const {
    for (const auto& item : request.params.items())
        if (!declares(item.key())) throw InputError("unknown parameter '" + item.key() + "'");
    if (const auto why = notApplicable(request.scenario)) return notApplicableReport(name(), *why);
    const CancelScope scope(&request.cancelled);
    return evaluate(request);
}

const char* parameterTypeName(CheckParameter::Type type) {
    switch (type) {
    case CheckParameter::Type::Integer:
        return "integer";
    case CheckParameter::Type::IntegerOrList:
        break;
    case CheckParameter::Type::Word:
        return "word";
    }
    return "integer or list of integers";
}

std::string parametersHelp(const PropertyCheck& check) {
    const std::string note = check.note();
    std::string text;
    for (const CheckParameter& p : check.parameters())
        text += (text.empty() ? "" : "; ") + p.name + " [" + p.defaultValue + "]" +
                (p.help.empty() ? "" : " " + p.help);
    if (text.empty()) return note.empty() ? "(none)" : "(none; " + note + ")";
    return note.empty() ? text : text + "; " + note;
}

} // namespace attnlab
