"""Independent double-precision oracle for `panoramix assoc --glm` on a case/control trait.

Usage: logistic_oracle.py RAW PHENO TRAIT COVAR|- OURS
  RAW    plink2 --export A of the fileset (ALT copies per sample, NA where missing)
  PHENO  the phenotype file (1 control, 2 case; 0/-9/NA missing), TRAIT its column
  COVAR  the covariate file or '-'
  OURS   panoramix's .glm.logistic.hybrid: its A1 orients x, its FIRTH? column says which fit
Fits every variant with numpy (Newton to 1e-12 for the maximum likelihood, Firth's penalised
likelihood where OURS says Y) and prints the largest relative difference of OR, LOG(OR)_SE,
Z_STAT and P from OURS, then the number of values compared.
"""
import math
import sys

import numpy as np


def table(path):
    rows = [l.split() for l in open(path) if l.strip()]
    return rows[0], {(r[0], r[1]): r[2:] for r in rows[1:]}


def num(v):
    try:
        x = float(v)
    except ValueError:
        return math.nan
    return math.nan if v.upper() in ("NA", "NAN") else x


def fit(X, y, firth):
    b = np.zeros(X.shape[1])
    for _ in range(200):
        p = 1 / (1 + np.exp(-X @ b))
        w = p * (1 - p)
        H = X.T @ (w[:, None] * X)
        Hinv = np.linalg.inv(H)
        r = y - p
        if firth:
            h = w * np.einsum("ij,jk,ik->i", X, Hinv, X)
            r = r + h * (0.5 - p)
        step = Hinv @ (X.T @ r)
        if firth:  # halve while the penalised log-likelihood falls
            def pll(c):
                q = 1 / (1 + np.exp(-X @ c))
                return np.sum(y * np.log(q) + (1 - y) * np.log(1 - q)) + 0.5 * np.linalg.slogdet(
                    X.T @ ((q * (1 - q))[:, None] * X))[1]
            base = pll(b)
            for _ in range(30):
                if pll(b + step) >= base:
                    break
                step = step / 2
        b = b + step
        if np.max(np.abs(step)) < 1e-12:
            break
    p = 1 / (1 + np.exp(-X @ b))
    H = X.T @ ((p * (1 - p))[:, None] * X)
    return b, np.sqrt(np.diag(np.linalg.inv(H)))


def main():
    raw, pheno, trait, covar, ours = sys.argv[1:6]
    rows = [l.split() for l in open(raw)]
    head, data = rows[0], rows[1:]
    ph_head, ph = table(pheno)
    col = ph_head.index(trait) - 2
    cov_names, cov = ([], {}) if covar == "-" else table(covar)
    ncov = max(len(cov_names) - 2, 0)
    out = {}
    for l in open(ours):
        if l.startswith("#"):
            continue
        f = l.rstrip("\n").split("\t")
        out.setdefault(f[2], []).append(f)
    worst, compared = 0.0, 0
    for j, name in enumerate(head[6:]):
        vid = name.rsplit("_", 1)[0]
        lines = out.get(vid)
        if not lines or lines[0][9] == "NA":
            continue
        X, y = [], []
        for r in data:
            key = (r[0], r[1])
            g = num(r[6 + j])
            v = num(ph.get(key, ["NA"] * (col + 1))[col])
            c = [num(x) for x in cov.get(key, ["NA"] * ncov)] if ncov else []
            if math.isnan(g) or v not in (1.0, 2.0) or any(math.isnan(x) for x in c):
                continue
            X.append([1.0, g] + c)
            y.append(v - 1)
        X, y = np.array(X), np.array(y)
        alt, a1 = name.rsplit("_", 1)[1], lines[0][5]
        if a1 != alt:
            X[:, 1] = 2 - X[:, 1]
        b, se = fit(X, y, lines[0][6] == "Y")
        for k, f in enumerate(lines):
            want = [math.exp(b[1 + k]), se[1 + k], b[1 + k] / se[1 + k],
                    math.erfc(abs(b[1 + k] / se[1 + k]) / math.sqrt(2))]
            for got, w in zip(f[9:13], want):
                worst = max(worst, abs(float(got) - w) / abs(w))
                compared += 1
    print(worst, compared)


main()
