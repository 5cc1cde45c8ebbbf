#!/usr/bin/env python3
"""Reference values of the standard normal CDF, PDF and erfc for tests/analytic_normal.rs.

Independent of Tenor's code: mpmath (arbitrary precision, 60 digits) evaluated at the exact
binary double nearest each decimal x, printed to 17 significant digits.
Regenerate: python3 normal_reference.py > normal_reference.csv   (mpmath 1.3.0 was used)
"""
import mpmath

mpmath.mp.dps = 60
xs = []
x = -38.0
while x <= 8.0 + 1e-9:
    xs.append(round(x, 4))
    x += 0.023
xs += [-0.6629, -0.663, -0.5, -0.1, 0.0, 1e-10, 0.1, 0.6629, 0.663, 1.0, 2.5, 5.0, -5.0, -10.0, -20.0,
       -30.0, -35.0, -37.0, 0.46875, 4.0, 4.01, 26.0, -26.0]
print("x,cdf,pdf,erfc")
for x in sorted(set(xs)):
    xm = mpmath.mpf(float(repr(x)))
    cdf = mpmath.ncdf(xm)
    pdf = mpmath.npdf(xm)
    erfc = mpmath.erfc(xm)
    print(f"{x!r},{mpmath.nstr(cdf, 17, min_fixed=1, max_fixed=0)},{mpmath.nstr(pdf, 17, min_fixed=1, max_fixed=0)},"
          f"{mpmath.nstr(erfc, 17, min_fixed=1, max_fixed=0)}")
