// SPDX-License-Identifier: GPL-3.0-or-later
// A check parameter's value written as text, as the window's parameter form takes and shows it:
// "5", "1, 7, 5" (or "[1,7,5]") for a list, a word. The values are the JSON a scenario's checks
// and `--property NAME:key=value` give (cli.md, "Property names and parameters").
#pragma once

#include "core/checks/property_check.h"

#include <string>
#include <vector>

namespace attnlab {

/// The words a Word parameter accepts: its default, then those its help lists ("or top-left").
std::vector<std::string> parameterWords(const CheckParameter& p);
/// The value `text` gives parameter `p`: an integer; for IntegerOrList one integer, or several
/// separated by commas or spaces (brackets optional) as a list; for Word one of its words. Blank
/// text gives null (the check's default). Throws InputError naming the parameter otherwise.
nlohmann::json parameterValue(const CheckParameter& p, const std::string& text);
/// `value` as text that reads back as it: "5", "1, 7, 5", "[2]", "top-left"; "" for null.
std::string parameterText(const nlohmann::json& value);

} // namespace attnlab
