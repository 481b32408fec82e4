#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The control for `attnlab-cli probe`'s tests: f(x) = x, the last M rows in decode mode.
Trivially causal, local with radius 0, equivariant and batch invariant. One-shot
(`identity.py IN.npy OUT.npy`) or persistent (ATTNLAB_PROBE=persistent), through
examples/probe/attnlab_probe.py.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree by the tests
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "probe"))
from attnlab_probe import queries, serve  # noqa: E402


def identity(x):
    m = queries() or x.shape[1]
    return x[:, x.shape[1] - m:]


if __name__ == "__main__":
    serve(identity)
