#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makes the byte-level BPE fixtures of tests/core/test_tokenizer.cpp with Hugging Face
`tokenizers` (not run by CI). Trains three small tokenizers on a built-in corpus, configured as
GPT-2, Llama 3 and Qwen2 are, and writes for each tests/fixtures/tokenizers/<style>/:
tokenizer.json and expected.json (tricky texts with the ids and tokens `tokenizers` gives them,
add_special_tokens=False).

    python3 scripts/hf-fixtures/make_tokenizer_fixtures.py

The first run creates scripts/hf-fixtures/.venv and installs `tokenizers` from PyPI there.
"""
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VENV = HERE / ".venv"
OUT = ROOT / "tests" / "fixtures" / "tokenizers"

LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
               r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It's 12:45 and I'm late!",
    "Don't stop: we'll see, they've gone, you're right, she'd know, I'LL GO, WE'VE SEEN.",
    "Numbers: 0, 7, 42, 1234567, 3.14159, -273.15, 1,000,000 and 2024-06-01.",
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00fcber stra\u00dfe \u00e9l\u00e8ve co\u00f6perate fa\u00e7ade",
    "\u6f22\u5b57\u3068\u4eee\u540d\u3001\u4e2d\u6587\u5b57\u7b26\uff0c\ud55c\uad6d\uc5b4 \u0440\u0443\u0441\u0441\u043a\u0438\u0439 \u03b5\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
    "Emoji: \U0001f600 \U0001f44d\U0001f3fd \U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f",
    "Lines\nwith\r\nbreaks\n\n\nand    runs   of spaces\tand\ttabs  \n  indented",
    "def f(x):\n    return x ** 2 + 1  # square\n\nprint(f(3))",
    "Punctuation!!! ... ??? (brackets) [more] {braces} <angle> \"quotes\" 'single'",
    "email@example.com https://example.org/path?q=1&r=2 #hashtag @mention $100 50%",
] * 3


def ensure_venv():
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "tokenizers"], check=True)
    os.execv(str(python), [str(python), __file__] + sys.argv[1:])


TEXTS = [
    "",
    " ",
    "hello",
    " hello",
    "hello ",
    "  hello  world  ",
    "a  b   c    d",
    "tab\tseparated\t\tvalues",
    "line one\nline two\r\nline three\n",
    "\n\n\n",
    "  \n  x",
    "1234567",
    "3.14159 and 1,000,000",
    "don't I'LL we've THEY'RE she'd it's 'S 'sx",
    "Caf\u00e9 r\u00e9sum\u00e9 na\u00efve",
    "Cafe\u0301 (e + combining acute)",
    "\u6f22\u5b57\u3068\u4eee\u540d \ud55c\uad6d\uc5b4",
    "\U0001f600\U0001f44d\U0001f3fd \U0001f468\u200d\U0001f469\u200d\U0001f467",
    "The quick brown fox jumps over the lazy dog.",
    "x = f(3) ** 2  # comment",
    "!!!???...",
    "a\u00a0b\u3000c\u2028d",
    "\u0130stanbul \u017fome 'ſ",
    "mixed123abc456",
    "   ",
    "end with spaces   ",
    "\t\t\tindent",
    "unknown bytes \x01\x7f",
    "SPECIAL",
    "before SPECIAL after",
    "SPECIALSPECIAL",
    "numbers 9876543210 and ٣٤٥ and \u2167",
]


def train(regex, special, nfc, ignore_merges):
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    if regex is None:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(regex), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    if nfc:
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=480, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    return tok


def write(style, tok, special, legacy_merges):
    from tokenizers import Tokenizer

    folder = OUT / style
    folder.mkdir(parents=True, exist_ok=True)
    data = json.loads(tok.to_str())
    if legacy_merges:
        data["model"]["merges"] = [" ".join(pair) for pair in data["model"]["merges"]]
    text = json.dumps(data, ensure_ascii=False, indent=1)
    (folder / "tokenizer.json").write_text(text, encoding="utf-8")
    tok = Tokenizer.from_str(text)  # what the C++ reads
    cases = []
    for t in TEXTS:
        t = t.replace("SPECIAL", special[-1])
        enc = tok.encode(t, add_special_tokens=False)
        cases.append({"text": t, "ids": enc.ids, "tokens": enc.tokens,
                      "nfc_changes": unicodedata.normalize("NFC", t) != t})
    expected = {"style": style, "tokenizers_version": __import__("tokenizers").__version__,
                "cases": cases}
    (folder / "expected.json").write_text(json.dumps(expected, ensure_ascii=False, indent=1),
                                          encoding="utf-8")
    print(f"{folder}: vocab {tok.get_vocab_size()}, {len(cases)} cases")


def main():
    ensure_venv()
    gpt2 = ["<|endoftext|>"]
    llama3 = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"]
    qwen2 = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    write("gpt2", train(None, gpt2, False, False), gpt2, legacy_merges=True)
    write("llama3", train(LLAMA3_REGEX, llama3, False, True), llama3, False)
    write("qwen2", train(QWEN2_REGEX, qwen2, True, False), qwen2, False)


if __name__ == "__main__":
    main()
