#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Programs that misbehave, for the tests of `attnlab-cli probe`'s error handling (numpy only).

    bad_program.py --fail KIND IN.npy OUT.npy                (one-shot kinds)
    ATTNLAB_PROBE=persistent bad_program.py --fail KIND      (stdout-noise, crash-persistent)

One-shot kinds, for an input of shape (B, N, D):
  exit          15 lines on stderr, the last "the last line of stderr", then exit status 3
  no-output     exit 0 without writing OUT
  not-npy       OUT holds the text "hello"
  wrong-shape   (B, N+1, D)            wrong-batch   (B-1, N, D)
  dtype         int32                  complex       complex128
  nan, inf      a float64 copy of the input with NaN (+inf) at sequence 0, row 1, column 2
  hang          sleeps 600 s
  hang-child    starts `sleep 600` in the background, writes its pid to the file named by
                ATTNLAB_TEST_PIDFILE (when set), then sleeps 600 s
  huge          a valid .npy header claiming (B, N, 10**9) float64 with only 64 bytes of data:
                the reader must refuse it from the header, never allocate it
Persistent kinds (requests "IN<TAB>OUT" on stdin, output = input):
  stdout-noise       prints junk lines on stdout before each answer
  crash-persistent   answers the first request, exits 1 on the second
"""
import os
import subprocess
import sys
import time

import numpy as np

ONE_SHOT = ["exit", "no-output", "not-npy", "wrong-shape", "wrong-batch", "dtype", "complex",
            "nan", "inf", "hang", "hang-child", "huge"]
PERSISTENT = ["stdout-noise", "crash-persistent"]


def save(path, array):
    with open(path, "wb") as out:  # exactly this path: np.save(path) may append ".npy"
        np.save(out, array)


def one_shot(kind, in_path, out_path):
    if kind == "exit":
        for i in range(1, 15):
            print(f"bad_program: stderr line {i} of 15", file=sys.stderr)
        print("the last line of stderr", file=sys.stderr)
        sys.exit(3)
    if kind == "hang":
        time.sleep(600)
        return
    if kind == "hang-child":
        child = subprocess.Popen(["sleep", "600"])
        pidfile = os.environ.get("ATTNLAB_TEST_PIDFILE")
        if pidfile:
            with open(pidfile + ".tmp", "w") as out:  # whole or absent for whoever polls it
                out.write(f"{child.pid}\n")
            os.replace(pidfile + ".tmp", pidfile)
        time.sleep(600)
        return
    if kind == "no-output":
        return
    if kind == "not-npy":
        with open(out_path, "w") as out:
            out.write("hello")
        return
    x = np.load(in_path)
    b, n, d = x.shape
    if kind == "wrong-shape":
        save(out_path, np.zeros((b, n + 1, d)))
    elif kind == "wrong-batch":
        save(out_path, np.zeros((b - 1, n, d)))
    elif kind == "dtype":
        save(out_path, np.zeros((b, n, d), dtype=np.int32))
    elif kind == "complex":
        save(out_path, x.astype(np.complex128))
    elif kind in ("nan", "inf"):
        y = x.astype(np.float64)
        y[0, 1, 2] = np.nan if kind == "nan" else np.inf
        save(out_path, y)
    elif kind == "huge":
        with open(out_path, "wb") as out:
            header = {"descr": "<f8", "fortran_order": False, "shape": (b, n, 10**9)}
            np.lib.format.write_array_header_1_0(out, header)
            out.write(bytes(64))


def persistent(kind):
    for count, line in enumerate(sys.stdin, start=1):
        in_path, out_path = line.rstrip("\n").split("\t")
        if kind == "crash-persistent" and count == 2:
            print("bad_program: crashing on the second request", file=sys.stderr)
            sys.exit(1)
        if kind == "stdout-noise":
            print("Loading weights... done")
            print("junk on stdout")
        save(out_path, np.load(in_path))
        print("ok", flush=True)


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "--fail" or args[1] not in ONE_SHOT + PERSISTENT:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    kind = args[1]
    if kind in PERSISTENT:
        persistent(kind)
    elif len(args) != 4:
        print(f"bad_program: --fail {kind} IN.npy OUT.npy", file=sys.stderr)
        sys.exit(2)
    else:
        one_shot(kind, args[2], args[3])


if __name__ == "__main__":
    main()
