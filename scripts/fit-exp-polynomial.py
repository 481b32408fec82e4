#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The coefficients of Exp2Steps<float>::nearZero (core/backend/cpu/softmax_column.h): the
degree-5 polynomial p(r) = 1 + c1·r + ... + c5·r^5 with the least largest relative error to 2^r
over |r| <= 1/2, by Lawson's iteratively reweighted least squares on Chebyshev points. Each
coefficient is rounded to float before the next ones are fitted, so the later ones make up for
the earlier ones' rounding. Prints them and the largest relative error of the rounded polynomial
(in exact arithmetic; the kernels' Horner steps in float add their roundings). Needs numpy (for
instance: bench/.venv/bin/python scripts/fit-exp-polynomial.py).
"""
import numpy as np

degree = 5
r = np.cos(np.linspace(0, np.pi, 8001)) * 0.5
exact = np.exp2(r)


def fit(fixed):
    """The minimax coefficients c_k for k past those fixed, with the fixed ones as given."""
    known = 1 + sum(c * r**k for k, c in enumerate(fixed, 1))
    free = range(len(fixed) + 1, degree + 1)
    basis = np.stack([r**k for k in free], 1) / exact[:, None]
    target = (exact - known) / exact  # relative error of p = (known + basis·c - exact) / exact
    weights = np.full(len(r), 1 / len(r))
    for _ in range(500):
        root = np.sqrt(weights)
        coefficients, *_ = np.linalg.lstsq(basis * root[:, None], target * root, rcond=None)
        error = np.abs(basis @ coefficients - target)
        weights = weights * error
        weights /= weights.sum()
    return coefficients


rounded = []
while len(rounded) < degree:
    rounded.append(float(np.float32(fit(rounded)[0])))
p = 1 + sum(c * r**k for k, c in enumerate(rounded, 1))
print(f"largest relative error {np.abs(p / exact - 1).max():.3g}")
for k, c in enumerate(rounded, 1):
    print(f"c{k} = {c!r}")
