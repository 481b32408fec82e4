// SPDX-License-Identifier: GPL-3.0-or-later
// The split patterns of the byte-level BPE pre-tokenizers (GPT-2, Llama 3, Qwen2), each a
// hand-made scanner that finds the same pieces as the regular expression, which the standard
// library cannot express (\p{L}, \p{N}, look-ahead over Unicode white space).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

enum class SplitPattern { Gpt2, Llama3, Qwen2 };

/// The scanner for a pattern as tokenizer.json writes it, if it is one of the known ones.
std::optional<SplitPattern> recognisePattern(std::string_view regex);
/// The pattern's regular expression.
std::string_view patternText(SplitPattern pattern);

/// The consecutive pieces of valid UTF-8 text that the pattern's matches isolate (the patterns
/// match every character, so the pieces cover the text).
std::vector<std::string> splitByPattern(std::string_view text, SplitPattern pattern);

} // namespace attnlab
