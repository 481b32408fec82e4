#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Connects a Python attention function to `attnlab-cli probe` (numpy only).

Use, in the program that `attnlab-cli probe -- PROGRAM ARGS...` runs (with this file next to
it, or its folder on PYTHONPATH):

    from attnlab_probe import serve
    def f(x): return my_attention(x)  # x: (B, N, D) float32/float64 -> (B, N, E)
    serve(f)

serve() speaks both ways AttnLab runs a program:

- one-shot: `PROGRAM ARGS... IN.npy OUT.npy`, once per batch. serve() reads IN, calls f and
  writes OUT; an exception in f ends the program with its traceback and a non-zero status;
- persistent (environment ATTNLAB_PROBE=persistent): the program is started once and reads
  one request per line on its standard input, `IN<TAB>OUT`; serve() answers `ok` on standard
  output, or `error: <ExceptionType>: <message>` on one line (the traceback goes to standard
  error) and goes on serving, until the end of its input. The answers own standard output:
  while serve() runs, anything else written there (print() in f, a library's messages) is sent
  to standard error.

Decode mode (`attnlab-cli probe --queries M`): queries() returns M, and f must return only the
last M query rows, (B, M, E), each against all N tokens; a causal mask is aligned bottom-right
(query i of the step sees keys 0 .. N-M+i). Without --queries, queries() is None.

What f returns may be a numpy array, anything np.asarray takes, or a torch tensor (detached and
moved to the CPU; bfloat16 becomes float32). float16, float32 and float64 are written as they
are; other real dtypes as float64; complex outputs are refused.

program_args() gives the program's own options: sys.argv[1:] without the two paths that
one-shot mode appends.
"""
import os
import sys
import traceback

import numpy as np

__all__ = ["serve", "queries", "program_args", "persistent"]


def persistent():
    """True when AttnLab started the program in persistent mode."""
    return os.environ.get("ATTNLAB_PROBE") == "persistent"


def queries():
    """M in decode mode (`--queries M`, environment ATTNLAB_PROBE_QUERIES), else None."""
    value = os.environ.get("ATTNLAB_PROBE_QUERIES", "").strip()
    return int(value) if value else None


def program_args(argv=None):
    """The program's own arguments: argv[1:] less the trailing IN OUT of one-shot mode."""
    argv = sys.argv if argv is None else argv
    return list(argv[1:]) if persistent() else list(argv[1:-2])


def _to_numpy(y):
    """f's result as a numpy array of float16, float32 or float64."""
    if hasattr(y, "detach"):  # a torch tensor: numpy has no bfloat16, so it becomes float32
        y = y.detach().cpu()
        if str(y.dtype) == "torch.bfloat16":
            y = y.float()
        y = y.numpy()
    y = np.asarray(y)
    if np.iscomplexobj(y):
        raise TypeError(f"the output is complex ({y.dtype}); attention outputs are real")
    if y.dtype not in (np.float16, np.float32, np.float64):
        y = y.astype(np.float64)
    return y


def _run(f, in_path, out_path):
    """One request: reads IN, calls f, writes OUT at exactly that path."""
    x = np.load(in_path)
    y = _to_numpy(f(x))
    with open(out_path, "wb") as out:  # np.save(path) would append ".npy" to a bare name
        np.save(out, y)


def _one_line(message):
    return " ".join(str(message).split())


def _serve_persistent(f):
    # The answers get a copy of the real standard output; file descriptor 1 itself (and
    # sys.stdout) then point to standard error, so that stray prints cannot corrupt them.
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        line = line.rstrip("\r\n")
        if not line:
            continue
        try:
            paths = line.split("\t")
            if len(paths) != 2:
                raise ValueError(f"expected 'IN<TAB>OUT', got {line!r}")
            _run(f, paths[0], paths[1])
            answer = "ok"
        except Exception as error:  # one bad request must not end the server
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            answer = _one_line(f"error: {type(error).__name__}: {error}")
        answers.write(answer + "\n")
        answers.flush()


def serve(f):
    """Runs f for AttnLab in the mode it was started in (see the module's docstring)."""
    if persistent():
        _serve_persistent(f)
        return
    if len(sys.argv) < 3 or not os.path.isfile(sys.argv[-2]):
        name = os.path.basename(sys.argv[0]) if sys.argv else "program"
        problem = "no IN OUT paths" if len(sys.argv) < 3 else f"no input file {sys.argv[-2]!r}"
        print(f"{name}: {problem}\n"
              f"usage: {name} [OPTIONS] IN.npy OUT.npy\n"
              f"   or: ATTNLAB_PROBE=persistent {name} [OPTIONS]  (then 'IN<TAB>OUT' lines on"
              " standard input)", file=sys.stderr)
        sys.exit(2)
    _run(f, sys.argv[-2], sys.argv[-1])
