// SPDX-License-Identifier: GPL-3.0-or-later
// Text to token ids and ids to readable labels (a checkpoint's tokenizer, read by core/formats):
// the spec layer holds it through this interface, so the GUI's text box and the CLI need not know
// the tokenizer's file format.
#pragma once

#include <string>
#include <vector>

namespace attnlab {

class TextEncoder {
public:
    virtual ~TextEncoder() = default;
    /// The ids of `text` (UTF-8); throws InputError when the text cannot be encoded.
    virtual std::vector<long long> encode(const std::string& text) const = 0;
    /// A readable label of token `id` for axes and rows (a leading space shown as "␣").
    virtual std::string label(long long id) const = 0;
    virtual long long vocabularySize() const = 0;
};

} // namespace attnlab
