// SPDX-License-Identifier: GPL-3.0-or-later
// Check parameters as typed text.
#include "core/checks/parameter_text.h"

#include "core/base/error.h"

#include <algorithm>
#include <charconv>

namespace attnlab {

namespace {

// The integers of `text` separated by commas or blanks (brackets dropped); throws when a piece is
// not an integer.
std::vector<long> integers(const CheckParameter& p, std::string text) {
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == ',' || c == '[' || c == ']'; }, ' ');
    std::vector<long> out;
    std::size_t start = text.find_first_not_of(' ');
    while (start != std::string::npos) {
        const std::size_t end = std::min(text.find(' ', start), text.size());
        long v = 0;
        const auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + end, v);
        if (ec != std::errc() || ptr != text.data() + end)
            throw InputError(p.name + ": '" + text.substr(start, end - start) +
                             "' is not an integer");
        out.push_back(v);
        start = text.find_first_not_of(' ', end);
    }
    return out;
}

} // namespace

std::vector<std::string> parameterWords(const CheckParameter& p) {
    std::vector<std::string> words{p.defaultValue};
    std::string help = p.help;
    std::replace(help.begin(), help.end(), ',', ' ');
    std::size_t start = help.find_first_not_of(' ');
    while (start != std::string::npos) {
        const std::size_t end = std::min(help.find(' ', start), help.size());
        const std::string word = help.substr(start, end - start);
        if (word != "or") words.push_back(word);
        start = help.find_first_not_of(' ', end);
    }
    return words;
}

nlohmann::json parameterValue(const CheckParameter& p, const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return nullptr;
    const std::string trimmed = text.substr(first, text.find_last_not_of(" \t") - first + 1);
    if (p.type == CheckParameter::Type::Word) {
        const std::vector<std::string> words = parameterWords(p);
        if (std::find(words.begin(), words.end(), trimmed) == words.end()) {
            std::string list;
            for (const std::string& w : words)
                list += (list.empty() ? "" : ", ") + w;
            throw InputError(p.name + ": '" + trimmed + "' is not one of " + list);
        }
        return trimmed;
    }
    const std::vector<long> values = integers(p, trimmed);
    if (values.empty()) throw InputError(p.name + ": give at least one integer");
    if (values.size() == 1 && trimmed.front() != '[') return values.front();
    if (p.type == CheckParameter::Type::Integer)
        throw InputError(p.name + ": '" + trimmed + "' is not one integer");
    return values;
}

std::string parameterText(const nlohmann::json& value) {
    if (value.is_null()) return {};
    if (value.is_string()) return value.get<std::string>();
    if (!value.is_array()) return value.dump();
    if (value.size() == 1) return value.dump(); // "[2]": reads back as a list, not as 2
    std::string text;
    for (const auto& v : value)
        text += (text.empty() ? "" : ", ") + v.dump();
    return text;
}

} // namespace attnlab
