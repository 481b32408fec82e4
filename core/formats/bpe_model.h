// SPDX-License-Identifier: GPL-3.0-or-later
// The BPE model of a byte-level tokenizer: a pre-token's bytes become one symbol each, and the
// ranked merges join neighbouring symbols, lowest rank first, as Hugging Face's BPE does.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab {

/// GPT-2's bytes_to_unicode: the character that stands for each byte in token strings.
const std::array<char32_t, 256>& byteLevelChars();
/// The bytes as token-string characters.
std::string byteLevelText(std::string_view bytes);
/// The bytes a token string stands for: each character mapped back to its byte, or the token's
/// own UTF-8 when a character is outside the byte alphabet (as the ByteLevel decoder does).
std::string byteLevelBytes(const std::string& token);

class BpeModel {
public:
    /// Joins the tokens `left` and `right` into `result`.
    struct MergeRule {
        int left, right, result;
    };

    /// `vocab` maps token strings to ids; `merges` are in rank order (a later duplicate of a
    /// pair wins, as in Hugging Face). `unknown` is the id of unk_token, if any.
    BpeModel(std::unordered_map<std::string, int> vocab, const std::vector<MergeRule>& merges,
             std::optional<int> unknown, bool fuseUnknown, bool ignoreMerges);

    /// The ids of one pre-token, given as raw bytes.
    std::vector<int> tokenize(std::string_view bytes) const;

private:
    struct Merge {
        int rank;
        int result;
    };

    std::unordered_map<std::string, int> vocab_;
    std::unordered_map<std::uint64_t, Merge> merges_;
    std::array<int, 256> byteIds_; // the id of each byte's character, -1 when not in the vocab
    std::optional<int> unknown_;
    bool fuseUnknown_;
    bool ignoreMerges_;

    std::vector<int> initialSymbols(std::string_view bytes) const;
    const Merge* mergeOf(int left, int right) const;
    std::vector<int> mergeAll(const std::vector<int>& symbols) const;
};

} // namespace attnlab
