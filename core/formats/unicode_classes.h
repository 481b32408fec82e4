// SPDX-License-Identifier: GPL-3.0-or-later
// The Unicode properties the byte-level BPE pre-tokenizers need, from generated range tables
// (core/formats/unicode_classes.cpp, made by scripts/hf-fixtures/make_unicode_classes.py).
#pragma once

namespace attnlab::unicode {

/// General category L: the pattern class \p{L}.
bool isLetter(char32_t c);
/// General category N: the pattern class \p{N}.
bool isNumber(char32_t c);
/// The White_Space property: the pattern class \s.
bool isWhiteSpace(char32_t c);
/// The canonical combining class (0 for starters).
int combiningClass(char32_t c);

enum class NfcQuickCheck { Yes = 0, No = 1, Maybe = 2 };
/// The NFC_Quick_Check property.
NfcQuickCheck nfcQuickCheck(char32_t c);

} // namespace attnlab::unicode
