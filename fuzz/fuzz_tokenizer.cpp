// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzzes the byte-level BPE tokenizer. An input starting with '{' is read as a tokenizer.json:
// it is refused with an InputError or encodes a sample text into ids that decode and label.
// Any other input is text, encoded by a seed tokenizer with the GPT-2, Llama 3 or Qwen2 pattern
// (chosen by the first byte): it is refused with an InputError (not UTF-8, or not NFC for
// Qwen2) or decodes back to itself.
#include "fuzz_support.h"

#include "core/formats/bpe_model.h"
#include "core/formats/bpe_tokenizer.h"
#include "core/formats/pretokenizer_patterns.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace {

using namespace attnlab;

/// Every byte's character, a few merges ("Ġthe"), an added token, and the pattern's
/// pre-tokenizer (Qwen2's with its NFC normaliser).
std::string seedTokenizerJson(SplitPattern pattern) {
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b)
        vocab[byteLevelText(std::string(1, char(b)))] = b;
    for (const char* merged : {"Ġt", "he", "Ġthe", "<|x|>"})
        vocab[merged] = int(vocab.size());
    const nlohmann::json byteLevel = {
        {"type", "ByteLevel"}, {"use_regex", false}, {"add_prefix_space", false}};
    const nlohmann::json split = {{"type", "Split"},
                                  {"pattern", {{"Regex", std::string(patternText(pattern))}}},
                                  {"behavior", "Isolated"},
                                  {"invert", false}};
    return nlohmann::json{
        {"added_tokens", {{{"id", vocab["<|x|>"]}, {"content", "<|x|>"}, {"special", true}}}},
        {"normalizer",
         pattern == SplitPattern::Qwen2 ? nlohmann::json{{"type", "NFC"}} : nlohmann::json()},
        {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {split, byteLevel}}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"Ġ t", "h e", "Ġt he"}}}}}
        .dump();
}

const BpeTokenizer& seedTokenizer(unsigned char selector) {
    static const BpeTokenizer seeds[] = {
        BpeTokenizer::fromJson(seedTokenizerJson(SplitPattern::Gpt2)),
        BpeTokenizer::fromJson(seedTokenizerJson(SplitPattern::Llama3)),
        BpeTokenizer::fromJson(seedTokenizerJson(SplitPattern::Qwen2))};
    return seeds[selector % 3];
}

void fuzzTokenizerJson(const std::string& json) {
    std::optional<BpeTokenizer> parsed;
    try {
        parsed = BpeTokenizer::fromJson(json);
    } catch (const InputError&) {
        return;
    }
    const BpeTokenizer& tokenizer = *parsed;
    const std::vector<int> ids = tokenizer.encode("Hello, world! It's 2024:\n\t caf\u00e9 \u6f22");
    tokenizer.decode(ids);
    for (int id : ids)
        if (id < 0 || id >= tokenizer.vocabSize() || tokenizer.tokenString(id).empty())
            fuzz::finding("an id outside the vocabulary or with an empty label", json);
}

void fuzzText(const BpeTokenizer& tokenizer, const std::string& text) {
    std::vector<int> ids;
    try {
        ids = tokenizer.encode(text);
    } catch (const InputError&) {
        return;
    }
    if (tokenizer.decode(ids) != text) fuzz::finding("decode(encode(text)) != text", text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string input(reinterpret_cast<const char*>(data), size);
    if (input[0] == '{')
        fuzzTokenizerJson(input);
    else
        fuzzText(seedTokenizer(data[0]), input.substr(1));
    return 0;
}
