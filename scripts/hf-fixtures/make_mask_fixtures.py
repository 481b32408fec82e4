#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Attention masks saved by numpy itself, for AttnLab's .npy mask reader (core/formats/npy.h).

Usage:
    scripts/hf-fixtures/.venv/bin/python scripts/hf-fixtures/make_mask_fixtures.py [--out DIR]

Writes into tests/fixtures/masks/ (default), for n = 6 tokens of which the last 2 are padding:
  causal_padding_bool.npy       bool, True = the query may attend to the key (PyTorch's boolean
                                attn_mask convention): causal and not a padding key
  causal_padding_additive.npy   float32 additive mask of the same: 0 attend, -inf blocked
                                (torch.zeros(n, n).masked_fill(~mask, float("-inf")))
  causal_padding_finfo_min.npy  float32, 1 x 1 x n x n, blocked = finfo(float32).min: the 4-D
                                additive mask transformers builds for one sequence
  causal_window_uint8.npy       uint8 0/1, 0 <= s - t <= 1 (not symmetric, so that a transposed
                                reading shows)
  causal_window_fortran.npy     the same in Fortran order
  causal_window_int32_be.npy    the same as big-endian int32
Each file is what `np.save(path, tensor.numpy())` writes for a torch tensor of that dtype. Only
numpy is needed (pinned in requirements.txt next to this file).
"""
import argparse
import os

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N, PADDING = 6, 2


def causal_padding_mask():
    """True where query s may attend to key t: t <= s and t is not a padding token."""
    causal = np.tril(np.ones((N, N), dtype=bool))
    real_keys = np.arange(N) < N - PADDING
    return causal & real_keys[None, :]


def additive(mask, blocked):
    """The additive float32 mask of a boolean one: 0 where allowed, `blocked` elsewhere."""
    out = np.zeros(mask.shape, dtype=np.float32)
    out[~mask] = blocked
    return out


def causal_window_mask():
    s, t = np.indices((N, N))
    return ((s - t >= 0) & (s - t <= 1)).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "masks"))
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    mask = causal_padding_mask()
    window = causal_window_mask()
    files = {
        "causal_padding_bool.npy": mask,
        "causal_padding_additive.npy": additive(mask, -np.inf),
        "causal_padding_finfo_min.npy": additive(mask, np.finfo(np.float32).min)[None, None],
        "causal_window_uint8.npy": window,
        "causal_window_fortran.npy": np.asfortranarray(window),
        "causal_window_int32_be.npy": window.astype(">i4"),
    }
    for name, array in files.items():
        np.save(os.path.join(out, name), array)
        print(f"{name}: {array.dtype.str} {array.shape}")


if __name__ == "__main__":
    main()
