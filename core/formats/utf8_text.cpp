// SPDX-License-Identifier: GPL-3.0-or-later
// UTF-8 decoding (strict and lossy), following the well-formed byte sequences of Unicode
// Table 3-7.
#include "core/formats/utf8_text.h"

namespace attnlab::utf8 {
namespace {

bool inRange(unsigned char b, unsigned lo, unsigned hi) {
    return b >= lo && b <= hi;
}

/// The allowed range of the second byte after lead byte `lead`, and the sequence length.
struct Lead {
    std::size_t length;
    unsigned secondLo, secondHi;
};

std::optional<Lead> leadOf(unsigned char lead) {
    if (lead < 0x80) return Lead{1, 0, 0};
    if (inRange(lead, 0xC2, 0xDF)) return Lead{2, 0x80, 0xBF};
    if (lead == 0xE0) return Lead{3, 0xA0, 0xBF};
    if (lead == 0xED) return Lead{3, 0x80, 0x9F};
    if (inRange(lead, 0xE1, 0xEF)) return Lead{3, 0x80, 0xBF};
    if (lead == 0xF0) return Lead{4, 0x90, 0xBF};
    if (lead == 0xF4) return Lead{4, 0x80, 0x8F};
    if (inRange(lead, 0xF1, 0xF3)) return Lead{4, 0x80, 0xBF};
    return std::nullopt;
}

} // namespace

Step step(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const std::optional<Lead> lead = leadOf(byte(0));
    if (!lead) return {1, false, 0};
    if (lead->length == 1) return {1, true, byte(0)};
    char32_t c = byte(0) & (0xFF >> (lead->length + 1));
    for (std::size_t i = 1; i < lead->length; ++i) {
        const unsigned lo = i == 1 ? lead->secondLo : 0x80;
        const unsigned hi = i == 1 ? lead->secondHi : 0xBF;
        if (at + i >= text.size() || !inRange(byte(i), lo, hi)) return {i, false, 0};
        c = (c << 6) | (byte(i) & 0x3F);
    }
    return {lead->length, true, c};
}

std::optional<std::size_t> firstInvalidByte(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        const Step s = step(text, at);
        if (!s.valid) return at;
        at += s.length;
    }
    return std::nullopt;
}

CodePoints decode(std::string_view text) {
    CodePoints out;
    std::size_t at = 0;
    while (at < text.size()) {
        const Step s = step(text, at);
        out.chars.push_back(s.c);
        out.offsets.push_back(at);
        at += s.length;
    }
    out.offsets.push_back(at);
    return out;
}

void append(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += char(c);
    } else if (c < 0x800) {
        out += char(0xC0 | (c >> 6));
        out += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += char(0xE0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    } else {
        out += char(0xF0 | (c >> 18));
        out += char(0x80 | ((c >> 12) & 0x3F));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    }
}

std::string lossy(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t at = 0; at < bytes.size();) {
        const Step s = step(bytes, at);
        if (s.valid)
            out.append(bytes.substr(at, s.length));
        else
            append(out, 0xFFFD);
        at += s.length;
    }
    return out;
}

} // namespace attnlab::utf8
