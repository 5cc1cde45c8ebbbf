#!/usr/bin/env python3
"""Reference values of the normalised out-of-the-money Black call b(x, s), x <= 0, computed
with mpmath at 60 significant digits (independent of Tenor's code). Writes
core/kernels/tests/data/normalised_black_mpmath.csv: x, s, b (17 significant digits).
b(x, s) = exp(x/2) Phi(x/s + s/2) - exp(-x/2) Phi(x/s - s/2) (Jaeckel 2015, eq. 2.2)."""
from mpmath import mp, mpf, exp, erfc, sqrt
import os

mp.dps = 60


def phi_cdf(z):
    return erfc(-z / sqrt(2)) / 2


def b(x, s):
    x, s = mpf(x), mpf(s)
    return exp(x / 2) * phi_cdf(x / s + s / 2) - exp(-x / 2) * phi_cdf(x / s - s / 2)


xs = [0.0, -1e-8, -1e-4, -0.01, -0.05, -0.2, -0.5, -1.0, -2.0, -5.0, -10.0, -30.0]
ss = [1e-3, 0.005, 0.02, 0.05, 0.1, 0.2, 0.3, 0.42, 0.6, 1.0, 2.0, 4.0, 8.0]
out = os.path.join(os.path.dirname(__file__), "..", "kernels", "tests", "data", "normalised_black_mpmath.csv")
with open(out, "w") as f:
    f.write("x,s,b\n")
    for x in xs:
        for s in ss:
            v = b(x, s)
            if v > mpf("1e-290"):
                f.write(f"{x!r},{s!r},{mp.nstr(v, 17, strip_zeros=False)}\n")
