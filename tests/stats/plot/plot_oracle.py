"""Independent values (scipy) for the plot geometry tests (test_plot_geometry.cpp).

Usage: plot_oracle.py lambda FILE      lambda_GC of the P values in FILE (one a line):
                                       median(chi2.isf(P, 1)) / chi2.ppf(0.5, 1), numpy's median
       plot_oracle.py chi2 FILE        chi2.isf(P, 1) for each P in FILE
       plot_oracle.py beta N RANK...   for each RANK: beta.ppf(0.975) and beta.ppf(0.025) of
                                       Beta(RANK, N - RANK + 1), the null band of a QQ plot
Prints one number a line, %.17g.
"""
import sys

import numpy as np
from scipy import stats


def main():
    what = sys.argv[1]
    if what in ("lambda", "chi2"):
        p = np.loadtxt(sys.argv[2], ndmin=1)
        chi2 = stats.chi2.isf(p, 1)
        values = [np.median(chi2) / stats.chi2.ppf(0.5, 1)] if what == "lambda" else chi2
    else:
        n = int(sys.argv[2])
        values = []
        for rank in map(int, sys.argv[3:]):
            b = stats.beta(rank, n - rank + 1)
            values += [b.ppf(0.975), b.ppf(0.025)]
    for v in values:
        print("%.17g" % v)


main()
