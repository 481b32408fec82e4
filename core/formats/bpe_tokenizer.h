// SPDX-License-Identifier: GPL-3.0-or-later
// Byte-level BPE tokenisation read from a Hugging Face tokenizer.json (GPT-2, Llama 3, Qwen2):
// the same ids as the Hugging Face tokenizer without its post-processor (add_special_tokens
// false), readable token strings for axis labels, and decoding back to text.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab {

class BpeTokenizer {
public:
    /// Parses the text of a tokenizer.json; throws InputError naming the JSON path of what is
    /// malformed or not supported.
    static BpeTokenizer fromJson(const std::string& jsonText);
    static BpeTokenizer fromFile(const std::filesystem::path& path);

    /// The token ids of UTF-8 text. Throws InputError for text that is not valid UTF-8, or that
    /// the tokenizer's NFC normaliser would change.
    std::vector<int> encode(const std::string& utf8) const;
    /// The text of the tokens; byte sequences that are not UTF-8 become U+FFFD, as in Hugging
    /// Face's decode (special tokens kept).
    std::string decode(const std::vector<int>& ids) const;
    /// A label for an axis: the token's text with a space shown as "␣", a tab, newline or
    /// carriage return as \t, \n, \r, other control bytes and bytes that are not UTF-8 as \xNN.
    std::string tokenString(int id) const;
    /// One past the largest token id.
    int vocabSize() const { return vocabSize_; }

private:
    struct Pipeline; // what encode runs: added tokens, normaliser, pre-tokenizer, BPE model

    static BpeTokenizer parse(const std::string& jsonText, const std::string& source);
    const std::string& bytesOf(int id) const;

    std::shared_ptr<const Pipeline> pipeline_;
    std::unordered_map<int, std::string> tokenBytes_; // the bytes each token id decodes to
    int vocabSize_ = 0;
};

} // namespace attnlab
