// SPDX-License-Identifier: GPL-3.0-or-later
// Scanners for the pre-tokenizer patterns. Each tries the pattern's alternatives in order at a
// position, as a backtracking regex engine does, and returns the end of the first that matches.
#include "core/formats/pretokenizer_patterns.h"

#include "core/formats/unicode_classes.h"
#include "core/formats/utf8_text.h"

#include <algorithm>

namespace attnlab {
namespace {

constexpr std::string_view gpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view llama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view qwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

using Chars = std::vector<char32_t>;
using unicode::isLetter;
using unicode::isNumber;
using unicode::isWhiteSpace;

bool isOther(char32_t c) {
    return !isWhiteSpace(c) && !isLetter(c) && !isNumber(c);
}
bool isLineBreak(char32_t c) {
    return c == '\r' || c == '\n';
}
bool isSpace(char32_t c) {
    return c == ' ';
}
/// [^\r\n\p{L}\p{N}]
bool isLetterPrefix(char32_t c) {
    return !isLineBreak(c) && !isLetter(c) && !isNumber(c);
}

/// The end of the run of characters from `at` that satisfy `in`.
template <class Predicate>
std::size_t runEnd(const Chars& c, std::size_t at, Predicate in) {
    while (at < c.size() && in(c[at]))
        ++at;
    return at;
}

/// Whether `c` matches the letter `lower` of a contraction, optionally ignoring case (which
/// also lets the long s, U+017F, match s).
bool contractionLetter(char32_t c, char lower, bool ignoreCase) {
    if (c == char32_t(lower)) return true;
    if (!ignoreCase) return false;
    return c == char32_t(lower - 'a' + 'A') || (lower == 's' && c == 0x17F);
}

/// 's|'t|'re|'ve|'m|'ll|'d at `at`: the end of the match, or `at`.
std::size_t contraction(const Chars& c, std::size_t at, bool ignoreCase) {
    static constexpr std::string_view suffixes[] = {"s", "t", "re", "ve", "m", "ll", "d"};
    if (c[at] != '\'') return at;
    for (std::string_view suffix : suffixes) {
        if (at + suffix.size() >= c.size()) continue;
        bool matches = true;
        for (std::size_t i = 0; i < suffix.size(); ++i)
            matches = matches && contractionLetter(c[at + 1 + i], suffix[i], ignoreCase);
        if (matches) return at + 1 + suffix.size();
    }
    return at;
}

/// P?R+ at `at` (P one optional character, R+ a run): the end of the match, or `at`.
template <class Prefix, class Run>
std::size_t optionalThenRun(const Chars& c, std::size_t at, Prefix prefix, Run run) {
    if (at + 1 < c.size() && prefix(c[at]) && run(c[at + 1])) return runEnd(c, at + 2, run);
    return runEnd(c, at, run);
}

/// \s+(?!\S): white space up to the end of the text, or all of it but the last character when
/// a non-space follows.
std::size_t spaceNotBeforeNonSpace(const Chars& c, std::size_t at) {
    const std::size_t end = runEnd(c, at, isWhiteSpace);
    if (end == c.size() || end == at) return end;
    return end - 1 > at ? end - 1 : at;
}

/// \s*[\r\n]+: white space up to and including its last line break.
std::size_t spaceThroughLineBreak(const Chars& c, std::size_t at) {
    const std::size_t end = runEnd(c, at, isWhiteSpace);
    for (std::size_t i = end; i > at; --i)
        if (isLineBreak(c[i - 1])) return i;
    return at;
}

/// \p{N}{1,max}
std::size_t digits(const Chars& c, std::size_t at, std::size_t max) {
    return std::min(runEnd(c, at, isNumber), at + max);
}

std::size_t gpt2Match(const Chars& c, std::size_t at) {
    if (std::size_t end = contraction(c, at, false); end > at) return end;
    if (std::size_t end = optionalThenRun(c, at, isSpace, isLetter); end > at) return end;
    if (std::size_t end = optionalThenRun(c, at, isSpace, isNumber); end > at) return end;
    if (std::size_t end = optionalThenRun(c, at, isSpace, isOther); end > at) return end;
    if (std::size_t end = spaceNotBeforeNonSpace(c, at); end > at) return end;
    return runEnd(c, at, isWhiteSpace);
}

/// The Llama 3 pattern, or Qwen2's when `maxDigits` is 1.
std::size_t llama3Match(const Chars& c, std::size_t at, std::size_t maxDigits) {
    if (std::size_t end = contraction(c, at, true); end > at) return end;
    if (std::size_t end = optionalThenRun(c, at, isLetterPrefix, isLetter); end > at) return end;
    if (std::size_t end = digits(c, at, maxDigits); end > at) return end;
    if (std::size_t end = optionalThenRun(c, at, isSpace, isOther); end > at)
        return runEnd(c, end, isLineBreak);
    if (std::size_t end = spaceThroughLineBreak(c, at); end > at) return end;
    if (std::size_t end = spaceNotBeforeNonSpace(c, at); end > at) return end;
    return runEnd(c, at, isWhiteSpace);
}

std::size_t matchEnd(const Chars& c, std::size_t at, SplitPattern pattern) {
    switch (pattern) {
    case SplitPattern::Gpt2:
        return gpt2Match(c, at);
    case SplitPattern::Llama3:
        return llama3Match(c, at, 3);
    case SplitPattern::Qwen2:
        return llama3Match(c, at, 1);
    }
    return at;
}

} // namespace

std::optional<SplitPattern> recognisePattern(std::string_view regex) {
    for (SplitPattern p : {SplitPattern::Gpt2, SplitPattern::Llama3, SplitPattern::Qwen2})
        if (regex == patternText(p)) return p;
    return std::nullopt;
}

std::string_view patternText(SplitPattern pattern) {
    switch (pattern) {
    case SplitPattern::Gpt2:
        return gpt2Regex;
    case SplitPattern::Llama3:
        return llama3Regex;
    case SplitPattern::Qwen2:
        return qwen2Regex;
    }
    return {};
}

std::vector<std::string> splitByPattern(std::string_view text, SplitPattern pattern) {
    const utf8::CodePoints points = utf8::decode(text);
    std::vector<std::string> pieces;
    for (std::size_t at = 0; at < points.chars.size();) {
        const std::size_t end = std::max(matchEnd(points.chars, at, pattern), at + 1);
        pieces.emplace_back(
            text.substr(points.offsets[at], points.offsets[end] - points.offsets[at]));
        at = end;
    }
    return pieces;
}

} // namespace attnlab
