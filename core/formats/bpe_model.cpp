// SPDX-License-Identifier: GPL-3.0-or-later
// The byte-level BPE model: the byte alphabet and the merge loop (a priority queue of candidate
// merges, lowest rank then leftmost first, stale entries skipped, as tokenizers' Word::merge_all).
#include "core/formats/bpe_model.h"

#include "core/formats/utf8_text.h"

#include <queue>

namespace attnlab {
namespace {

std::array<char32_t, 256> makeByteLevelChars() {
    std::array<char32_t, 256> chars{};
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
        const bool printable =
            (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        chars[b] = printable ? char32_t(b) : next++;
    }
    return chars;
}

std::unordered_map<char32_t, char> makeCharBytes() {
    std::unordered_map<char32_t, char> bytes;
    for (int b = 0; b < 256; ++b)
        bytes[byteLevelChars()[b]] = char(b);
    return bytes;
}

std::uint64_t pairKey(int left, int right) {
    return (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
}

/// A symbol of a word being merged: its token and its live neighbours (-1: none).
struct Symbol {
    int id;
    int prev;
    int next;
    bool alive = true;
};

/// A candidate merge of the symbol at `pos` with its right neighbour.
struct Candidate {
    int rank;
    int pos;
    int result;
};

/// The priority queue's order: the lowest rank first, then the leftmost.
struct LaterCandidate {
    bool operator()(const Candidate& a, const Candidate& b) const {
        return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    }
};

} // namespace

const std::array<char32_t, 256>& byteLevelChars() {
    static const std::array<char32_t, 256> chars = makeByteLevelChars();
    return chars;
}

std::string byteLevelText(std::string_view bytes) {
    std::string text;
    text.reserve(bytes.size() * 2);
    for (unsigned char b : bytes)
        utf8::append(text, byteLevelChars()[b]);
    return text;
}

std::string byteLevelBytes(const std::string& token) {
    static const std::unordered_map<char32_t, char> charBytes = makeCharBytes();
    std::string bytes;
    for (char32_t c : utf8::decode(token).chars) {
        const auto it = charBytes.find(c);
        if (it == charBytes.end()) return token;
        bytes += it->second;
    }
    return bytes;
}

BpeModel::BpeModel(std::unordered_map<std::string, int> vocab, const std::vector<MergeRule>& merges,
                   std::optional<int> unknown, bool fuseUnknown, bool ignoreMerges)
    : vocab_(std::move(vocab)), unknown_(unknown), fuseUnknown_(fuseUnknown),
      ignoreMerges_(ignoreMerges) {
    for (std::size_t rank = 0; rank < merges.size(); ++rank)
        merges_[pairKey(merges[rank].left, merges[rank].right)] =
            Merge{int(rank), merges[rank].result};
    for (int b = 0; b < 256; ++b) {
        std::string c;
        utf8::append(c, byteLevelChars()[b]);
        const auto it = vocab_.find(c);
        byteIds_[b] = it == vocab_.end() ? -1 : it->second;
    }
}

std::vector<int> BpeModel::tokenize(std::string_view bytes) const {
    if (ignoreMerges_) {
        const auto whole = vocab_.find(byteLevelText(bytes));
        if (whole != vocab_.end()) return {whole->second};
    }
    return mergeAll(initialSymbols(bytes));
}

/// One symbol per byte; a byte missing from the vocabulary becomes unk_token (consecutive ones
/// fused into one with fuse_unk) or, without unk_token, is dropped.
std::vector<int> BpeModel::initialSymbols(std::string_view bytes) const {
    std::vector<int> symbols;
    symbols.reserve(bytes.size());
    bool afterUnknown = false;
    for (unsigned char b : bytes) {
        const int id = byteIds_[b];
        if (id >= 0) {
            symbols.push_back(id);
            afterUnknown = false;
        } else if (unknown_) {
            if (!(fuseUnknown_ && afterUnknown)) symbols.push_back(*unknown_);
            afterUnknown = true;
        }
    }
    return symbols;
}

const BpeModel::Merge* BpeModel::mergeOf(int left, int right) const {
    const auto it = merges_.find(pairKey(left, right));
    return it == merges_.end() ? nullptr : &it->second;
}

std::vector<int> BpeModel::mergeAll(const std::vector<int>& ids) const {
    const int n = static_cast<int>(ids.size());
    std::vector<Symbol> symbols;
    symbols.reserve(ids.size());
    for (int i = 0; i < n; ++i)
        symbols.push_back({ids[i], i - 1, i + 1 < n ? i + 1 : -1});
    std::priority_queue<Candidate, std::vector<Candidate>, LaterCandidate> queue;
    const auto propose = [&](int pos) {
        if (pos < 0 || symbols[pos].next < 0) return;
        if (const Merge* m = mergeOf(symbols[pos].id, symbols[symbols[pos].next].id))
            queue.push({m->rank, pos, m->result});
    };
    for (int i = 0; i + 1 < n; ++i)
        propose(i);
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[top.pos];
        if (!left.alive || left.next < 0) continue;
        const Merge* current = mergeOf(left.id, symbols[left.next].id);
        if (!current || current->result != top.result) continue;
        Symbol& right = symbols[left.next];
        left.id = top.result;
        right.alive = false;
        left.next = right.next;
        if (right.next >= 0) symbols[right.next].prev = top.pos;
        propose(left.prev);
        propose(top.pos);
    }
    std::vector<int> out;
    for (const Symbol& s : symbols)
        if (s.alive) out.push_back(s.id);
    return out;
}

} // namespace attnlab
