#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The attention layer of numpy_attention.py in PyTorch, for `attnlab-cli probe`: one call to
torch.nn.functional.scaled_dot_product_attention with a boolean attn_mask (True = may attend),
in float32 on the CPU. Needs torch.

    attnlab-cli probe -- examples/probe/torch_sdpa.py --mask causal
    attnlab-cli probe -- examples/probe/torch_sdpa.py --mask causal --bug tril1
    attnlab-cli probe -- examples/probe/torch_sdpa.py --flex

Options:
  --mask all | causal   which keys query i may read (default causal)
  --bug tril1           the causal mask built with .tril(1) instead of .tril(): a leak of the
                        next token
  --flex                FlexAttention's flex_attention with a causal mask_mod instead of SDPA
                        (when this torch has torch.nn.attention.flex_attention)
Decode mode (`attnlab-cli probe --queries M`) computes only the last M query rows, against all
N keys, with the last M rows of the N x N mask (the bottom-right alignment).

The weights Wq, Wk, Wv (D x D, scaled by 1/sqrt(D)) come from a torch.Generator seeded with
1234, so the outputs are not numpy_attention.py's: only their properties compare.
"""
import argparse
import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ left beside the example
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnlab_probe import program_args, queries, serve  # noqa: E402

try:  # FlexAttention arrived in PyTorch 2.5
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
except ImportError:
    flex_attention = None
# Eager flex_attention (no torch.compile) is slower, not wrong: its warning saying so would only
# crowd the standard error that AttnLab quotes when something fails.
warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")


def weights(d):
    """Wq, Wk, Wv: fixed (D, D) matrices, the same for every run with this D."""
    generator = torch.Generator().manual_seed(1234)
    return torch.randn(3, d, d, generator=generator) / math.sqrt(d)


def causal_mask(n, bug):
    """The n x n boolean mask, True where query i may read key j <= i."""
    if bug == "tril1":
        # BUG: tril(1) keeps the first diagonal above the main one too (tril's argument is the
        # highest diagonal kept, not a count): query i may read key i + 1, its next token.
        return torch.ones(n, n, dtype=torch.bool).tril(1)
    return torch.ones(n, n, dtype=torch.bool).tril()


def sdpa(q, k, v, options):
    """q (B, M, D) for the last M queries, k and v (B, N, D)."""
    if options.mask == "all":
        return F.scaled_dot_product_attention(q, k, v)
    m, n = q.shape[-2], k.shape[-2]
    mask = causal_mask(n, options.bug)[n - m:]  # decode: the last m rows (bottom-right)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def flex(q, k, v, options):
    """The same with flex_attention and a mask_mod."""
    m, n, d = q.shape[-2], k.shape[-2], q.shape[-1]
    offset = n - m  # query i of a decode step is token n - m + i

    def causal(b, h, q_idx, kv_idx):
        return q_idx + offset >= kv_idx

    block_mask = None
    if options.mask == "causal":
        block_mask = create_block_mask(causal, None, None, m, n, device="cpu")
    # flex_attention wants (B, H, L, E) with E a power of two: add a head axis and pad E with
    # zeros (they change no score), keep the scale 1/sqrt(D), and drop the padding after.
    e = max(16, 1 << (d - 1).bit_length())

    def heads(t):
        return F.pad(t, (0, e - d)).unsqueeze(1)

    out = flex_attention(heads(q), heads(k), heads(v), block_mask=block_mask,
                         scale=1.0 / math.sqrt(d))
    return out.squeeze(1)[..., :d]


def layer(x, options):
    """x (B, N, D) numpy -> (B, M, D) float32 tensor; M = N outside decode mode."""
    t = torch.tensor(x, dtype=torch.float32)
    n, d = t.shape[1], t.shape[2]
    m = queries() or n
    if not 1 <= m <= n:
        raise ValueError(f"ATTNLAB_PROBE_QUERIES={m} is not in 1..N={n}")
    wq, wk, wv = weights(d)
    with torch.no_grad():
        q = t[:, n - m:] @ wq
        k = t @ wk
        v = t @ wv
        return flex(q, k, v, options) if options.flex else sdpa(q, k, v, options)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mask", choices=["all", "causal"], default="causal",
                        help="default causal")
    parser.add_argument("--bug", choices=["tril1"], help="plant this mistake")
    parser.add_argument("--flex", action="store_true", help="use flex_attention")
    options = parser.parse_args(program_args())
    if options.bug == "tril1" and options.mask != "causal":
        parser.error("--bug tril1 needs --mask causal")
    if options.flex and flex_attention is None:
        parser.error(f"--flex: this torch ({torch.__version__}) has no flex_attention")
    if options.flex and options.bug:
        parser.error("--bug tril1 is a mistake in SDPA's attn_mask, not with --flex")
    serve(lambda x: layer(x, options))


if __name__ == "__main__":
    main()
