#!/usr/bin/env python3
"""Independent oracle of `panoramix krr`: decodes the PLINK filesets with numpy, imputes missing
calls at 2p (p over every training sample), builds X = [dosages | standardised covariates], fits
scikit-learn's KernelRidge (rbf, or a precomputed IBS kernel counted directly) on the phenotypes
centred on their training means, and prints the largest relative differences of the weights and
predictions from the files panoramix wrote:  weights_rel <x> pred_rel <y>
Usage: krr_sklearn_oracle.py TRAIN TEST PHENO COVAR|- gaussian|ibs GAMMA ALPHA OUT_PREFIX traits..."""
import sys

import numpy as np
from sklearn.kernel_ridge import KernelRidge

from plink_numpy import read_bed, read_table


def main():
    train, test, pheno, covar, kernel, gamma, alpha, out = sys.argv[1:9]
    traits = sys.argv[9:]
    gamma, alpha = float(gamma), float(alpha)
    ids, _, G = read_bed(train)
    tids, _, T = read_bed(test)
    called = ~np.isnan(G)
    p = np.where(called.sum(0) > 0, np.nansum(G, 0) / (2 * np.maximum(called.sum(0), 1)), 0.5)
    G = np.where(np.isnan(G), 2 * p, G)
    T = np.where(np.isnan(T), 2 * p, T)
    header, ph = read_table(pheno)
    cols = [header.index(t) for t in traits]
    y = np.array([[ph.get(i, [np.nan] * len(header))[c] for c in cols] for i in ids])
    cv = None
    if covar != "-":
        cheader, cvals = read_table(covar)
        cv = np.array([cvals.get(i, [np.nan] * len(cheader)) for i in ids])
        tcv = np.array([cvals.get(i, [np.nan] * len(cheader)) for i in tids])
    ok = ~np.isnan(y).any(1)
    if cv is not None:
        ok &= ~np.isnan(cv).any(1)
    means = y[ok].mean(0)
    Y = y[ok] - means
    X, XT = G[ok], T
    if cv is not None:
        mu, sd = cv[ok].mean(0), cv[ok].std(0, ddof=1)
        X = np.hstack([X, (cv[ok] - mu) / sd])
        XT = np.hstack([XT, (tcv - mu) / sd])
    if kernel == "gaussian":
        kr = KernelRidge(kernel="rbf", gamma=gamma, alpha=alpha).fit(X, Y)
        pred = np.full((len(XT), Y.shape[1]), np.nan)  # NA where a TEST sample lacks a covariate
        known = ~np.isnan(XT).any(1)
        pred[known] = kr.predict(XT[known]) + means
    else:
        def ibs(A, B):
            return np.array([[np.sum(2 - np.abs(a - b)) for b in B] for a in A]) / (2 * A.shape[1])
        kr = KernelRidge(kernel="precomputed", alpha=alpha).fit(ibs(X, X), Y)
        pred = kr.predict(ibs(XT, X)) + means
    W = kr.dual_coef_.reshape(len(Y), -1)

    def ours(path):
        rows = [l.split() for l in open(path)][1:]
        return [(r[0], r[1]) for r in rows], np.array([[np.nan if v == "NA" else float(v) for v in r[2:]] for r in rows])

    wid, w = ours(out + ".weights")
    pid, pr = ours(out + ".pred")
    assert wid == [i for i, k in zip(ids, ok) if k], "fitted samples differ"
    assert pid == tids, "TEST samples differ"
    wrel = np.max(np.abs(w - W) / np.max(np.abs(W), 0))
    assert (np.isnan(pr) == np.isnan(pred)).all(), "NA predictions differ"
    known = ~np.isnan(pred).any(1)
    prel = np.max(np.abs(pr[known] - pred[known]) / np.max(np.abs(pred[known]), 0))
    print("weights_rel %.3e pred_rel %.3e n %d" % (wrel, prel, len(Y)))


if __name__ == "__main__":
    main()
