// SPDX-License-Identifier: GPL-3.0-or-later
// BpeTokenizer: reads a tokenizer.json and runs Hugging Face's encoding steps in order: added
// tokens split out of the raw text, the normaliser, the pre-tokenizer's splits and byte mapping,
// and the BPE model on each piece.
#include "core/formats/bpe_tokenizer.h"

#include "core/base/error.h"
#include "core/formats/bpe_model.h"
#include "core/formats/json_reader.h"
#include "core/formats/pretokenizer_patterns.h"
#include "core/formats/unicode_classes.h"
#include "core/formats/utf8_text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace attnlab {
namespace {

constexpr long maxTokenId = (1L << 22) - 1;

struct AddedToken {
    std::string content;
    int id;
    bool lstrip, rstrip;
};

/// A piece of the text: plain text, or an added token's id.
struct Segment {
    std::string text;
    int addedId = -1;
};

/// Finds added tokens in text as tokenizers' AddedVocabulary does: leftmost-longest matches,
/// white space stripped around those with lstrip/rstrip.
class AddedTokenMatcher {
public:
    void add(AddedToken token) {
        auto& candidates = byFirstByte_[static_cast<unsigned char>(token.content[0])];
        candidates.push_back(std::move(token));
        std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
            return a.content.size() > b.content.size();
        });
    }

    /// Splits each text segment further around the added tokens.
    std::vector<Segment> split(const std::vector<Segment>& segments) const {
        std::vector<Segment> out;
        for (const Segment& s : segments)
            if (s.addedId >= 0)
                out.push_back(s);
            else
                splitText(s.text, out);
        return out;
    }

private:
    std::array<std::vector<AddedToken>, 256> byFirstByte_;

    const AddedToken* longestAt(std::string_view text, std::size_t at) const {
        for (const AddedToken& t : byFirstByte_[static_cast<unsigned char>(text[at])])
            if (text.substr(at, t.content.size()) == t.content) return &t;
        return nullptr;
    }

    void splitText(std::string_view text, std::vector<Segment>& out) const {
        std::size_t done = 0;
        for (std::size_t at = 0; at < text.size();) {
            const AddedToken* token = longestAt(text, at);
            if (!token) {
                ++at;
                continue;
            }
            std::size_t start = at, stop = at + token->content.size();
            if (token->lstrip) start = std::max(spaceStartBefore(text, start), done);
            if (token->rstrip) stop = spaceEndAfter(text, stop);
            if (done < start) out.push_back({std::string(text.substr(done, start - done))});
            out.push_back({{}, token->id});
            done = at = stop;
        }
        if (done < text.size()) out.push_back({std::string(text.substr(done))});
    }

    static std::size_t spaceStartBefore(std::string_view text, std::size_t end) {
        const utf8::CodePoints points = utf8::decode(text.substr(0, end));
        std::size_t i = points.chars.size();
        while (i > 0 && unicode::isWhiteSpace(points.chars[i - 1]))
            --i;
        return points.offsets[i];
    }

    static std::size_t spaceEndAfter(std::string_view text, std::size_t start) {
        const utf8::CodePoints points = utf8::decode(text.substr(start));
        std::size_t i = 0;
        while (i < points.chars.size() && unicode::isWhiteSpace(points.chars[i]))
            ++i;
        return start + points.offsets[i];
    }
};

/// A pre-tokenizer step on each piece: a Split by a pattern, or ByteLevel (which may add a
/// leading space and split by the GPT-2 pattern).
struct PreTokenizerStep {
    bool addPrefixSpace = false;
    std::optional<SplitPattern> split;
};

std::vector<std::string> applyStep(const PreTokenizerStep& step, std::vector<std::string> pieces) {
    std::vector<std::string> out;
    for (std::string& piece : pieces) {
        if (step.addPrefixSpace && piece.front() != ' ') piece.insert(0, 1, ' ');
        if (!step.split) {
            out.push_back(std::move(piece));
            continue;
        }
        for (std::string& part : splitByPattern(piece, *step.split))
            out.push_back(std::move(part));
    }
    return out;
}

std::string hexByte(unsigned char b) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "\\x%02X", b);
    return buffer;
}

std::string codePointName(char32_t c) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "U+%04X", unsigned(c));
    return buffer;
}

/// Refuses text that NFC might change (the NFC quick check is not Yes).
void requireNfcStable(const std::string& text) {
    const utf8::CodePoints points = utf8::decode(text);
    int lastClass = 0;
    for (std::size_t i = 0; i < points.chars.size(); ++i) {
        const char32_t c = points.chars[i];
        const int combiningClass = unicode::combiningClass(c);
        if ((combiningClass != 0 && lastClass > combiningClass) ||
            unicode::nfcQuickCheck(c) != unicode::NfcQuickCheck::Yes)
            throw InputError("text", "byte " + std::to_string(points.offsets[i]) + " (" +
                                         codePointName(c) +
                                         ") may be changed by the tokenizer's NFC normalizer, "
                                         "which is not supported: normalize the text to NFC "
                                         "first");
        lastClass = combiningClass;
    }
}

bool isNullOrAbsent(const JsonReader& object, std::string_view key) {
    return !object.has(key) || object.at(key).node().is_null();
}

bool optionalBoolean(const JsonReader& object, std::string_view key, bool fallback) {
    return isNullOrAbsent(object, key) ? fallback : object.at(key).boolean();
}

void requireObject(const JsonReader& r) {
    if (!r.isObject()) r.fail("must be an object");
}

std::string typeOf(const JsonReader& r) {
    requireObject(r);
    return r.at("type").string();
}

[[noreturn]] void unsupportedType(const JsonReader& r, const std::string& type,
                                  const std::string& supported) {
    r.at("type").fail("\"" + type + "\" is not supported (" + supported + ")");
}

void requireNull(const JsonReader& object, std::string_view key, const std::string& why) {
    if (!isNullOrAbsent(object, key)) object.at(key).fail("is not supported (" + why + ")");
}

int tokenId(const JsonReader& r) {
    return static_cast<int>(r.integer(0, maxTokenId));
}

} // namespace

struct BpeTokenizer::Pipeline {
    AddedTokenMatcher rawAddedTokens;        // normalized: false, matched in the raw text
    AddedTokenMatcher normalizedAddedTokens; // normalized: true, matched after normalization
    bool nfc = false;
    std::vector<PreTokenizerStep> preTokenizer;
    BpeModel model;

    std::vector<std::string> preTokenize(const std::string& text) const {
        std::vector<std::string> pieces{text};
        for (const PreTokenizerStep& step : preTokenizer)
            pieces = applyStep(step, std::move(pieces));
        return pieces;
    }
};

namespace {

struct ParsedModel {
    std::unordered_map<std::string, int> vocab;
    std::vector<BpeModel::MergeRule> merges;
    std::optional<int> unknown;
    bool fuseUnknown, ignoreMerges;
};

std::unordered_map<std::string, int> readVocab(const JsonReader& vocab) {
    requireObject(vocab);
    std::unordered_map<std::string, int> tokens;
    std::unordered_map<int, std::string> byId;
    for (const auto& item : vocab.node().items()) {
        const JsonReader entry(item.value(), vocab.path() + "[\"" + item.key() + "\"]");
        const int id = tokenId(entry);
        const auto [other, fresh] = byId.emplace(id, item.key());
        if (!fresh) entry.fail("id " + std::to_string(id) + " is also \"" + other->second + "\"");
        tokens.emplace(item.key(), id);
    }
    return tokens;
}

/// The two tokens of a merge: "a b" (older files) or ["a", "b"].
std::pair<std::string, std::string> mergePair(const JsonReader& merge) {
    if (merge.isArray()) {
        if (merge.size() != 2) merge.fail("must be a pair of tokens");
        return {merge.at(std::size_t(0)).string(), merge.at(std::size_t(1)).string()};
    }
    const std::string text = merge.string();
    const std::size_t space = text.find(' ');
    if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
        merge.fail("must be two tokens separated by one space");
    return {text.substr(0, space), text.substr(space + 1)};
}

std::vector<BpeModel::MergeRule> readMerges(const JsonReader& merges,
                                            const std::unordered_map<std::string, int>& vocab) {
    std::vector<BpeModel::MergeRule> rules;
    const std::size_t n = merges.size();
    rules.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const JsonReader merge = merges.at(i);
        const auto [left, right] = mergePair(merge);
        const auto idOf = [&](const std::string& token) {
            const auto it = vocab.find(token);
            if (it == vocab.end()) merge.fail("\"" + token + "\" is not in model.vocab");
            return it->second;
        };
        const int leftId = idOf(left), rightId = idOf(right);
        rules.push_back({leftId, rightId, idOf(left + right)});
    }
    return rules;
}

ParsedModel readModel(const JsonReader& model) {
    const std::string type = typeOf(model);
    if (type != "BPE") unsupportedType(model, type, "byte-level BPE only");
    requireNull(model, "dropout", "must be null");
    requireNull(model, "continuing_subword_prefix", "must be null");
    requireNull(model, "end_of_word_suffix", "must be null");
    if (optionalBoolean(model, "byte_fallback", false))
        model.at("byte_fallback").fail("true is not supported (byte-level BPE only)");
    ParsedModel parsed;
    parsed.vocab = readVocab(model.at("vocab"));
    parsed.merges = readMerges(model.at("merges"), parsed.vocab);
    if (!isNullOrAbsent(model, "unk_token")) {
        const JsonReader unk = model.at("unk_token");
        const auto it = parsed.vocab.find(unk.string());
        if (it == parsed.vocab.end()) unk.fail("\"" + unk.string() + "\" is not in model.vocab");
        parsed.unknown = it->second;
    }
    parsed.fuseUnknown = optionalBoolean(model, "fuse_unk", false);
    parsed.ignoreMerges = optionalBoolean(model, "ignore_merges", false);
    return parsed;
}

bool readNfcNormalizer(const JsonReader& root) {
    if (isNullOrAbsent(root, "normalizer")) return false;
    const JsonReader normalizer = root.at("normalizer");
    const std::string type = typeOf(normalizer);
    if (type != "NFC") unsupportedType(normalizer, type, "only NFC or null");
    return true;
}

PreTokenizerStep readByteLevel(const JsonReader& step) {
    const bool useRegex = optionalBoolean(step, "use_regex", true);
    return {optionalBoolean(step, "add_prefix_space", true),
            useRegex ? std::optional(SplitPattern::Gpt2) : std::nullopt};
}

PreTokenizerStep readSplit(const JsonReader& step) {
    const JsonReader pattern = step.at("pattern");
    requireObject(pattern);
    const JsonReader regex = pattern.at("Regex");
    const std::optional<SplitPattern> known = recognisePattern(regex.string());
    if (!known) regex.fail("unknown pattern (the GPT-2, Llama 3 and Qwen2 patterns are supported)");
    if (step.at("behavior").string() != "Isolated")
        step.at("behavior").fail("must be \"Isolated\"");
    if (optionalBoolean(step, "invert", false)) step.at("invert").fail("must be false");
    return {false, known};
}

/// ByteLevel, or a Sequence of Splits ending with ByteLevel.
std::vector<PreTokenizerStep> readPreTokenizer(const JsonReader& root) {
    const JsonReader pre = root.at("pre_tokenizer");
    const std::string type = typeOf(pre);
    if (type == "ByteLevel") return {readByteLevel(pre)};
    if (type != "Sequence") unsupportedType(pre, type, "ByteLevel or Sequence only");
    const JsonReader steps = pre.at("pretokenizers");
    const std::size_t n = steps.size();
    if (n == 0) steps.fail("must end with ByteLevel");
    std::vector<PreTokenizerStep> out;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const std::string stepType = typeOf(steps.at(i));
        if (stepType != "Split")
            unsupportedType(steps.at(i), stepType, "Split, then ByteLevel last");
        out.push_back(readSplit(steps.at(i)));
    }
    const std::string lastType = typeOf(steps.at(n - 1));
    if (lastType != "ByteLevel") unsupportedType(steps.at(n - 1), lastType, "ByteLevel last");
    out.push_back(readByteLevel(steps.at(n - 1)));
    return out;
}

void requireByteLevelDecoder(const JsonReader& root) {
    const JsonReader decoder = root.at("decoder");
    if (decoder.node().is_null()) decoder.fail("must be ByteLevel");
    const std::string type = typeOf(decoder);
    if (type != "ByteLevel") unsupportedType(decoder, type, "ByteLevel only");
}

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + ": cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw InputError(path.string() + ": cannot read the file");
    return text.str();
}

/// An axis label: printable characters as they are, a space as ␣, other controls escaped.
void appendLabelChar(std::string& label, char32_t c) {
    switch (c) {
    case ' ':
        label += "\u2423";
        return;
    case '\n':
        label += "\\n";
        return;
    case '\t':
        label += "\\t";
        return;
    case '\r':
        label += "\\r";
        return;
    default:
        break;
    }
    if (c < 0x20 || c == 0x7F)
        label += hexByte(static_cast<unsigned char>(c));
    else
        utf8::append(label, c);
}

} // namespace

BpeTokenizer BpeTokenizer::fromJson(const std::string& jsonText) {
    return parse(jsonText, "tokenizer.json");
}

BpeTokenizer BpeTokenizer::fromFile(const std::filesystem::path& path) {
    return parse(readText(path), path.string());
}

BpeTokenizer BpeTokenizer::parse(const std::string& jsonText, const std::string& source) {
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(jsonText);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(source, std::string("not valid JSON: ") + e.what());
    }
    try {
        const JsonReader root(document, "");
        requireObject(root);
        requireNull(root, "truncation", "must be null");
        requireNull(root, "padding", "must be null");
        requireByteLevelDecoder(root);
        ParsedModel model = readModel(root.at("model"));
        BpeTokenizer tokenizer;
        for (const auto& [token, id] : model.vocab)
            tokenizer.tokenBytes_[id] = byteLevelBytes(token);
        auto pipeline = std::make_shared<Pipeline>(
            Pipeline{{},
                     {},
                     readNfcNormalizer(root),
                     readPreTokenizer(root),
                     BpeModel(std::move(model.vocab), model.merges, model.unknown,
                              model.fuseUnknown, model.ignoreMerges)});
        if (!isNullOrAbsent(root, "added_tokens")) {
            const JsonReader added = root.at("added_tokens");
            for (std::size_t i = 0, n = added.size(); i < n; ++i) {
                const JsonReader entry = added.at(i);
                requireObject(entry);
                if (optionalBoolean(entry, "single_word", false))
                    entry.at("single_word").fail("true is not supported");
                const std::string content = entry.at("content").string();
                if (content.empty()) entry.at("content").fail("must not be empty");
                AddedToken token{content, tokenId(entry.at("id")),
                                 optionalBoolean(entry, "lstrip", false),
                                 optionalBoolean(entry, "rstrip", false)};
                tokenizer.tokenBytes_[token.id] = byteLevelBytes(content);
                (optionalBoolean(entry, "normalized", false) ? pipeline->normalizedAddedTokens
                                                             : pipeline->rawAddedTokens)
                    .add(std::move(token));
            }
        }
        for (const auto& entry : tokenizer.tokenBytes_)
            tokenizer.vocabSize_ = std::max(tokenizer.vocabSize_, entry.first + 1);
        tokenizer.pipeline_ = std::move(pipeline);
        return tokenizer;
    } catch (const InputError& e) {
        throw InputError(source, e.what());
    }
}

std::vector<int> BpeTokenizer::encode(const std::string& utf8) const {
    if (const auto bad = utf8::firstInvalidByte(utf8))
        throw InputError("text", "not valid UTF-8 at byte " + std::to_string(*bad));
    if (pipeline_->nfc) requireNfcStable(utf8);
    std::vector<Segment> segments = pipeline_->rawAddedTokens.split({{utf8}});
    segments = pipeline_->normalizedAddedTokens.split(segments);
    std::unordered_map<std::string, std::vector<int>> cache;
    std::vector<int> ids;
    for (const Segment& segment : segments) {
        if (segment.addedId >= 0) {
            ids.push_back(segment.addedId);
            continue;
        }
        for (const std::string& piece : pipeline_->preTokenize(segment.text)) {
            auto [cached, fresh] = cache.try_emplace(piece);
            if (fresh) cached->second = pipeline_->model.tokenize(piece);
            ids.insert(ids.end(), cached->second.begin(), cached->second.end());
        }
    }
    return ids;
}

const std::string& BpeTokenizer::bytesOf(int id) const {
    const auto it = tokenBytes_.find(id);
    if (it == tokenBytes_.end())
        throw InputError("token id " + std::to_string(id) + " is not in the vocabulary");
    return it->second;
}

std::string BpeTokenizer::decode(const std::vector<int>& ids) const {
    std::string bytes;
    for (int id : ids)
        bytes += bytesOf(id);
    return utf8::lossy(bytes);
}

std::string BpeTokenizer::tokenString(int id) const {
    const std::string& bytes = bytesOf(id);
    std::string label;
    for (std::size_t at = 0; at < bytes.size();) {
        const utf8::Step s = utf8::step(bytes, at);
        if (s.valid)
            appendLabelChar(label, s.c);
        else
            for (std::size_t i = 0; i < s.length; ++i)
                label += hexByte(static_cast<unsigned char>(bytes[at + i]));
        at += s.length;
    }
    return label;
}

} // namespace attnlab
