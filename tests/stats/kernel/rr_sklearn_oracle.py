#!/usr/bin/env python3
"""Independent oracle of `panoramix rr`: decodes the PLINK filesets with numpy, centres the A1
dosages by 2p (p over every training sample's calls; a missing call is imputed at 2p, i.e. 0 once
centred; 0.5 where a variant has no call), drops X/Y/XY/MT, appends the covariates standardised on
the fitted samples (those with every phenotype and covariate), fits scikit-learn's
Ridge(alpha=lambda, fit_intercept=False) on the phenotypes centred on their training means and
prints the largest differences of the coefficients and predictions from the files panoramix wrote,
relative to each column's largest magnitude, and the 2-norm condition number of X'X + lambda I
(up to 4,000 columns, else nan):  beta_rel <x> pred_rel <y> n <fitted> m <columns> cond <k>
Usage: rr_sklearn_oracle.py TRAIN TEST|- PHENO COVAR|- LAMBDA OUT_PREFIX traits..."""
import sys

import numpy as np
from sklearn.linear_model import Ridge

from plink_numpy import read_bed, read_table


def main():
    train, test, pheno, covar, lam, out = sys.argv[1:7]
    traits = sys.argv[7:]
    ids, variants, G = read_bed(train)
    called = ~np.isnan(G)
    p = np.where(called.sum(0) > 0, np.nansum(G, 0) / (2 * np.maximum(called.sum(0), 1)), 0.5)
    Z = np.where(np.isnan(G), 0.0, G - 2 * p)
    header, ph = read_table(pheno)
    cols = [header.index(t) for t in traits]
    y = np.array([[ph.get(i, [np.nan] * len(header))[c] for c in cols] for i in ids])
    ok = ~np.isnan(y).any(1)
    cv = cheader = None
    if covar != "-":
        cheader, cvals = read_table(covar)
        cv = np.array([cvals.get(i, [np.nan] * len(cheader)) for i in ids])
        ok &= ~np.isnan(cv).any(1)
    means = y[ok].mean(0)
    Y = y[ok] - means
    X = Z[ok]
    if cv is not None:
        mu, sd = cv[ok].mean(0), cv[ok].std(0, ddof=1)
        X = np.hstack([X, (cv[ok] - mu) / sd])
    model = Ridge(alpha=float(lam), fit_intercept=False).fit(X, Y)
    beta = model.coef_.reshape(Y.shape[1], -1).T  # columns x traits

    rows = [l.split() for l in open(out + ".beta")]
    assert rows[0] == ["ID", "A1"] + traits, "header of .beta"
    names = variants + ([(c, ".") for c in cheader] if cv is not None else [])
    assert [(r[0], r[1]) for r in rows[1:]] == names, "rows of .beta differ"
    b = np.array([[float(v) for v in r[2:]] for r in rows[1:]])
    brel = np.max(np.abs(b - beta) / np.max(np.abs(beta), 0))
    prel = float("nan")
    if test != "-":
        tids, tvariants, T = read_bed(test)
        assert tvariants == variants, "TEST variants"
        XT = np.where(np.isnan(T), 0.0, T - 2 * p)
        if cv is not None:
            tcv = np.array([cvals.get(i, [np.nan] * len(cheader)) for i in tids])
            XT = np.hstack([XT, (tcv - mu) / sd])
        pred = XT @ beta + means  # NaN where a TEST sample lacks a covariate
        prow = [l.split() for l in open(out + ".pred")][1:]
        assert [(r[0], r[1]) for r in prow] == tids, "TEST samples differ"
        pr = np.array([[np.nan if v == "NA" else float(v) for v in r[2:]] for r in prow])
        assert (np.isnan(pr) == np.isnan(pred)).all(), "NA predictions differ"
        known = ~np.isnan(pred).any(1)
        prel = np.max(np.abs(pr[known] - pred[known]) / np.max(np.abs(pred[known]), 0))
    cond = np.linalg.cond(X.T @ X + float(lam) * np.eye(X.shape[1])) if X.shape[1] <= 4000 else float("nan")
    print("beta_rel %.3e pred_rel %.3e n %d m %d cond %.6e" % (brel, prel, len(Y), X.shape[1], cond))


if __name__ == "__main__":
    main()
