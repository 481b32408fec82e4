#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""One attention layer in plain numpy, for `attnlab-cli probe`: correct as it stands, or with one
planted bug (--bug NAME) of the kind the probe is there to find.

    attnlab-cli probe -- examples/probe/numpy_attention.py --mask causal
    attnlab-cli probe -- examples/probe/numpy_attention.py --mask causal --bug leak

The layer, for each sequence x of N tokens of width D (computed in float64, returned in x's
dtype): Q = x Wq, K = x Wk, V = x Wv with fixed weights (D x D, from
np.random.default_rng(1234), scaled by 1/sqrt(D)); scores = Q K^T / sqrt(D), -inf where the mask
forbids; softmax along the keys (a row with no allowed key gives zeros); output = weights V.

Options:
  --mask all | causal | window:R | causal-window:R     which keys query i may read (default
      causal). window:R is |i - j| <= R; causal-window:R is 0 <= i - j <= R.
  --bug leak | window-off-by-one | block-sparse | batch | decode-top-left | length
      a planted mistake, described where the code makes it (leak, block-sparse and
      decode-top-left need --mask causal; window-off-by-one needs a window mask).
Decode mode (`attnlab-cli probe --queries M`) computes only the last M query rows, against all
N keys, with rows N-M .. N-1 of the N x N mask (the bottom-right alignment).
"""
import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ left beside the example
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnlab_probe import program_args, queries, serve  # noqa: E402

BUGS = ["leak", "window-off-by-one", "block-sparse", "batch", "decode-top-left", "length"]
BLOCK = 4  # block size of --bug block-sparse


def mask_option(text):
    """--mask's value as (kind, R)."""
    kind, _, radius = text.partition(":")
    if kind in ("all", "causal") and not radius:
        return kind, 0
    if kind in ("window", "causal-window") and radius.isdigit():
        return kind, int(radius)
    raise argparse.ArgumentTypeError("expected all, causal, window:R or causal-window:R")


def weights(d):
    """Wq, Wk, Wv: generic fixed (D, D) matrices, the same for every run with this D."""
    rng = np.random.default_rng(1234)
    return rng.standard_normal((3, d, d)) / np.sqrt(d)


def full_mask(n, kind, radius, bug):
    """True where query i may read key j, for a whole pass of n tokens (n x n)."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if bug == "window-off-by-one":
        # BUG: the radius mixed up with the window's reach "R tokens plus one": the user wrote
        # `abs(i - j) <= radius + 1` (0 <= i - j <= radius + 1 for the causal window), so
        # every query reads one key too many on each side the window has.
        radius += 1
    if kind == "all":
        return np.ones((n, n), dtype=bool)
    if kind == "window":
        return np.abs(i - j) <= radius
    if kind == "causal-window":
        return (i - j >= 0) & (i - j <= radius)
    if bug == "block-sparse":
        # BUG: a block-sparse causal kernel that visits whole key blocks of BLOCK tokens, and
        # counts them with a floor where a ceiling was needed:
        #     n_blocks = (i + 1) // BLOCK     (meant: (i + BLOCK) // BLOCK)
        #     keys read = 0 .. n_blocks * BLOCK - 1
        # so the partial diagonal block is dropped: query i reads the blocks before its own,
        # plus its own block only when it is the block's last row (queries 0..2 read nothing).
        # Allowed keys go missing, and with N not a multiple of BLOCK the keys of the last,
        # partial block are read by no query at all (dead keys).
        return j < (i + 1) // BLOCK * BLOCK
    mask = j <= i  # causal
    if bug == "leak" and n > 5:
        # BUG: a mask patched by hand for a special token, row and column swapped: the user
        # meant mask[5, 2] (query 5 reads key 2, already allowed) and wrote mask[2, 5], so
        # query 2 now reads token 5, from its future.
        mask[2, 5] = True
    return mask


def attend(x, mask_rows, scale):
    """One sequence x (N, D), float64: the outputs of its last M queries, M = len(mask_rows);
    scale (M, 1) multiplies each query row's scores."""
    wq, wk, wv = weights(x.shape[1])
    m = mask_rows.shape[0]
    q = x[len(x) - m:] @ wq
    k = x @ wk
    v = x @ wv
    scores = np.where(mask_rows, (q @ k.T) * scale, -np.inf)
    top = scores.max(axis=1, keepdims=True)
    top[np.isneginf(top)] = 0.0  # a row with no allowed key: all its exp() are 0
    e = np.exp(scores - top)
    total = e.sum(axis=1, keepdims=True)
    w = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return w @ v


def layer(x, options):
    """The layer on a batch x (B, N, D); (B, M, D) in decode mode."""
    kind, radius = options.mask
    bug = options.bug
    b, n, d = x.shape
    m = queries() or n
    if not 1 <= m <= n:
        raise ValueError(f"ATTNLAB_PROBE_QUERIES={m} is not in 1..N={n}")
    xs = x.astype(np.float64)
    if bug == "length":
        # BUG: a positional term scaled by the length, position i / N: token i gets a different
        # input in a prefix of m tokens than in the whole pass, though causality still holds.
        xs = xs + (np.arange(n) / n)[None, :, None]
    scale = np.full((n, 1), 1.0 / np.sqrt(d))  # one temperature per query row
    if bug == "batch":
        # BUG: a temperature per query token from its largest activation, meant as
        #     np.abs(xs).max(axis=2)         one value per (sequence, token)
        # but written with the batch axis too,
        #     np.abs(xs).max(axis=(0, 2))    one value per token position, over the batch
        # so query i of one sequence is scaled by token i of the others beside it in the batch.
        # (Token i only: the layer stays causal; a max over the whole array would not be.)
        scale = scale * (1.0 + 0.1 * np.abs(xs).max(axis=(0, 2)))[:, None]
    mask = full_mask(n, kind, radius, bug)
    rows = mask[n - m:]  # decode: the last m rows of the full mask (bottom-right)
    if bug == "decode-top-left" and m < n:
        # BUG: the step's causal mask built for an m x n rectangle as PyTorch's is_causal does,
        # aligned top-left: query i of the step reads keys 0..i, not 0..n-m+i.
        rows = np.tril(np.ones((m, n), dtype=bool))
    out = np.empty((b, m, d))
    for s in range(b):
        out[s] = attend(xs[s], rows, scale[n - m:])
    return out.astype(x.dtype)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mask", type=mask_option, default=("causal", 0),
                        help="all, causal, window:R or causal-window:R (default causal)")
    parser.add_argument("--bug", choices=BUGS, help="plant this mistake")
    options = parser.parse_args(program_args())
    kind = options.mask[0]
    if options.bug in ("leak", "block-sparse", "decode-top-left") and kind != "causal":
        parser.error(f"--bug {options.bug} needs --mask causal")
    if options.bug == "window-off-by-one" and kind not in ("window", "causal-window"):
        parser.error("--bug window-off-by-one needs --mask window:R or causal-window:R")
    serve(lambda x: layer(x, options))


if __name__ == "__main__":
    main()
