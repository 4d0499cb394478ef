"""Dense oracles of the --lmm tests (numpy/scipy; no eigendecomposition, no shared code).

  lmm_oracle.py ktext REL_BIN N OUT
      K (n x n float64, row-major) as GEMMA's -k text.
  lmm_oracle.py ktext-gcta GRM_PREFIX OUT
      A GCTA binary GRM (float32 lower triangle, .grm.id) as GEMMA's -k text.
  lmm_oracle.py gemma-inputs PREFIX PHENO COVAR OUT
      GEMMA's other inputs: OUT.fam (PREFIX.fam with PHENO's value, matched by FID IID, in column 6;
      -9 where missing), OUT.cov (1, then COVAR's values; NA where missing; no line header), and
      OUT.bed/OUT.bim as links.
  lmm_oracle.py wald PREFIX REL_BIN PHENO COVAR LMM OUT
      For the analysed samples (phenotype and every covariate present): the REML lambda of the null
      model maximised directly (dense V = lambda K + I, GEMMA's normalisation), then for every
      tested variant of LMM (our output, run with --lmm-null: one LAMBDA for all), at the LAMBDA LMM
      reports, the Wald test by generalised least squares: OUT lines 'ID beta se p' after a first
      line 'null <lambda>'.
"""
import sys

import numpy as np
from scipy import linalg, optimize, stats


def read_table(path):
    rows = [l.split() for l in open(path) if l.strip()]
    head = rows[0]
    return head, {(r[0], r[1]): r[2:] for r in rows[1:]}


def bed_dosages(prefix, n):
    """ALT (.bim column 5) copies, NaN where missing; variants x samples."""
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)[3:]
    per = (n + 3) // 4
    raw = raw.reshape(-1, per)
    codes = np.stack([(raw >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(raw.shape[0], -1)[:, :n]
    x = np.choose(codes, [2.0, np.nan, 1.0, 0.0])
    return x


def reml(lam, K, W, y):
    n, c = W.shape
    V = lam * K + np.eye(n)
    L = np.linalg.cholesky(V)
    Vi_W = np.linalg.solve(V, W)
    Vi_y = np.linalg.solve(V, y)
    WViW = W.T @ Vi_W
    Py = Vi_y - Vi_W @ np.linalg.solve(WViW, W.T @ Vi_y)
    yPy = y @ Py
    df = n - c
    logdetV = 2 * np.sum(np.log(np.diag(L)))
    logdet_hiw = np.linalg.slogdet(WViW)[1] - np.linalg.slogdet(W.T @ W)[1]
    return 0.5 * df * (np.log(df) - np.log(2 * np.pi) - 1) - 0.5 * logdetV - 0.5 * logdet_hiw - 0.5 * df * np.log(yPy)


class Gls:
    """P = V^-1 - V^-1 W (W' V^-1 W)^-1 W' V^-1 at one lambda, by a Cholesky factor of V."""

    def __init__(self, lam, K, W):
        self.f = linalg.cho_factor(lam * K + np.eye(K.shape[0]))
        self.W = W
        self.Vi_W = linalg.cho_solve(self.f, W)
        self.WViW = W.T @ self.Vi_W

    def P(self, v):
        Vi_v = linalg.cho_solve(self.f, v)
        return Vi_v - self.Vi_W @ np.linalg.solve(self.WViW, self.W.T @ Vi_v)


def wald(gls, y, x):
    n, c = gls.W.shape
    Px = gls.P(x)
    xPx, xPy, yPy = x @ Px, y @ Px, y @ gls.P(y)
    df = n - c - 1
    beta = xPy / xPx
    tau = df / (yPy - xPy * xPy / xPx)
    se = np.sqrt(1 / (tau * xPx))
    return beta, se, stats.f.sf(beta * beta / (se * se), 1, df)


def main():
    if sys.argv[1] == "ktext":
        n = int(sys.argv[3])
        np.savetxt(sys.argv[4], np.fromfile(sys.argv[2]).reshape(n, n), fmt="%.17g", delimiter="\t")
        return
    if sys.argv[1] == "ktext-gcta":
        n = sum(1 for _ in open(sys.argv[2] + ".grm.id"))
        tri = np.fromfile(sys.argv[2] + ".grm.bin", dtype=np.float32).astype(np.float64)
        K = np.zeros((n, n))
        K[np.tril_indices(n)] = tri
        K = K + K.T - np.diag(np.diag(K))
        np.savetxt(sys.argv[3], K, fmt="%.17g", delimiter="\t")
        return
    if sys.argv[1] == "gemma-inputs":
        import os
        prefix, pheno, covar, out = sys.argv[2:6]
        _, ph = read_table(pheno)
        _, cv = read_table(covar) if covar != "-" else (None, {})
        with open(out + ".fam", "w") as f, open(out + ".cov", "w") as c:
            for line in open(prefix + ".fam"):
                r = line.split()
                v = ph.get((r[0], r[1]), ["NA"])[0]
                f.write(" ".join(r[:5] + ["-9" if v in ("NA", "-9") else v]) + "\n")
                cov = cv.get((r[0], r[1]), ["NA"]) if covar != "-" else []
                c.write(" ".join(["1"] + cov) + "\n")
        for ext in (".bed", ".bim"):
            if os.path.lexists(out + ext):
                os.remove(out + ext)
            os.symlink(os.path.abspath(prefix + ext), out + ext)
        return
    prefix, rel_bin, pheno, covar, lmm, out = sys.argv[2:8]
    fam = [l.split()[:2] for l in open(prefix + ".fam")]
    n = len(fam)
    K = np.fromfile(rel_bin).reshape(n, n)
    _, ph = read_table(pheno)
    _, cv = read_table(covar)
    num = lambda s: np.nan if s in ("NA", "-9") else float(s)
    keep, y, W = [], [], []
    for i, key in enumerate(fam):
        v = num(ph[tuple(key)][0]) if tuple(key) in ph else np.nan
        c = [num(s) for s in cv[tuple(key)]] if tuple(key) in cv else [np.nan]
        if np.isfinite(v) and all(np.isfinite(c)):
            keep.append(i), y.append(v), W.append([1.0] + c)
    keep = np.array(keep)
    y, W, K = np.array(y), np.array(W), K[np.ix_(keep, keep)]
    r = optimize.minimize_scalar(lambda t: -reml(np.exp(t), K, W, y), bounds=(np.log(1e-5), np.log(1e5)),
                                 method="bounded", options={"xatol": 1e-10})
    X = bed_dosages(prefix, n)[:, keep]
    rows = [l.rstrip("\n").split("\t") for l in open(lmm) if not l.startswith("#")]
    gls = {}
    with open(out, "w") as f:
        f.write("null %.17g\n" % np.exp(r.x))
        for j, row in enumerate(rows):
            if row[-1] != ".":
                continue
            x = X[j].copy()
            x[np.isnan(x)] = np.nanmean(x)
            lam = float(row[12])
            if lam not in gls:
                gls[lam] = Gls(lam, K, W)
            b, s, p = wald(gls[lam], y, x)
            f.write("%s %.17g %.17g %.17g\n" % (row[2], b, s, p))


main()
