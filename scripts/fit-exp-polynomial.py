#!/usr/bin/env python3
"""The coefficients of expNearZero (core/backend/cpu/softmax_column.h): the degree-5 polynomial
p(r) = 1 + c1·r + ... + c5·r^5 with the least largest relative error to exp(r) over
|r| <= ln(2)/2, by Lawson's iteratively reweighted least squares on Chebyshev points, printed
rounded to float. Needs numpy (for instance: bench/.venv/bin/python scripts/fit-exp-polynomial.py).
"""
import numpy as np

half_ln2 = np.log(2) / 2
r = np.cos(np.linspace(0, np.pi, 4001)) * half_ln2
exact = np.exp(r)
degree = 5
basis = np.stack([r**k for k in range(1, degree + 1)], 1) / exact[:, None]
target = (exact - 1) / exact  # relative error of p = (1 + basis·c - exact) / exact
weights = np.full(len(r), 1 / len(r))
for _ in range(500):
    root = np.sqrt(weights)
    coefficients, *_ = np.linalg.lstsq(basis * root[:, None], target * root, rcond=None)
    error = np.abs(basis @ coefficients - target)
    weights = weights * error
    weights /= weights.sum()
print(f"largest relative error {error.max():.3g}")
for k, c in enumerate(coefficients, 1):
    print(f"c{k} = {float(np.float32(c))!r}")
