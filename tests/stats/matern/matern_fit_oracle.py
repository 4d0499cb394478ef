# The independent oracle of test_matern_fit's estimates: the ML/REML log-likelihood of
#   y = X b + g + e,  Cov(g) = sigma2 2^(1-nu)/Gamma(nu) (sqrt(2 nu) h/rho)^nu K_nu(sqrt(2 nu) h/rho),
#   e ~ N(0, sigma2_e I)
# written here with scipy.special.kve (not panoramix's quadrature), b by GLS, maximised by brute
# force on the log parameters: Nelder-Mead from two starts (to 1e-4), then Newton steps on central
# finite differences from the best one (kept only while the likelihood rises), until the step is
# below 1e-9. Distances from points (Euclidean), or from a PLINK .bed decoded here: A1 dosages of
# the listed samples (0-based .fam rows), missing calls imputed with 2p (p over those samples'
# calls, 0.5 without any), optionally D / (2 sum p(1-p)).
# usage: matern_fit_oracle.py (--points P.txt | --bed PREFIX --samples IDX.txt [--standardize])
#                              --y Y.txt [--X X.txt] [--reml] [--fix-nu V]
# prints: sigma2 rho nu sigma2_e logL (repr)
import argparse
import numpy as np
import scipy.linalg
import scipy.optimize
from scipy.special import gammaln, kve

ap = argparse.ArgumentParser()
ap.add_argument("--points")
ap.add_argument("--bed")
ap.add_argument("--samples")
ap.add_argument("--standardize", action="store_true")
ap.add_argument("--y", required=True)
ap.add_argument("--X")
ap.add_argument("--reml", action="store_true")
ap.add_argument("--fix-nu", type=float)
a = ap.parse_args()


def bed_distances(prefix, idx, standardize):
    n_all = sum(1 for _ in open(prefix + ".fam"))
    m = sum(1 for _ in open(prefix + ".bim"))
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    assert raw[0] == 0x6C and raw[1] == 0x1B and raw[2] == 1
    per = (n_all + 3) // 4
    b = raw[3:].reshape(m, per)
    codes = np.stack([(b >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(m, per * 4)[:, :n_all]
    codes = codes[:, idx].T  # samples x variants
    dose = np.choose(codes, [2.0, np.nan, 1.0, 0.0])
    called = (~np.isnan(dose)).sum(axis=0)
    s = np.nansum(dose, axis=0)
    p = np.where(called > 0, s / np.maximum(2 * called, 1), 0.5)
    x = np.where(np.isnan(dose), 2 * p, dose)
    x = x - x.mean(axis=0)
    sq = (x * x).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2 * (x @ x.T)
    if standardize:
        D = D / (2 * (p * (1 - p)).sum())
    D = np.maximum(D, 0)
    np.fill_diagonal(D, 0)
    return np.sqrt(D)


if a.points:
    pts = np.loadtxt(a.points, ndmin=2)
    h = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
else:
    h = bed_distances(a.bed, np.loadtxt(a.samples, dtype=np.int64, ndmin=1), a.standardize)
y = np.loadtxt(a.y, ndmin=1)
n = len(y)
X = np.loadtxt(a.X, ndmin=2) if a.X else np.zeros((n, 0))
p = X.shape[1]
iu = np.triu_indices(n, 1)
hu = h[iu]


def loglik(lt):
    s2, rho, nu, s2e = np.exp(lt)
    if not np.all(np.isfinite([s2, rho, nu, s2e])) or nu > 150:
        return -np.inf
    z = np.sqrt(2 * nu) * hu / rho
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        c = s2 * np.exp((1 - nu) * np.log(2) - gammaln(nu) + nu * np.log(z) - z) * kve(nu, z)
    c = np.where(z == 0, s2, c)
    V = np.zeros((n, n))
    V[iu] = c
    V = V + V.T
    V[np.diag_indices(n)] = s2 + s2e
    try:
        L = scipy.linalg.cho_factor(V, lower=True)
    except np.linalg.LinAlgError:
        return -np.inf
    logdet = 2 * np.log(np.diag(L[0])).sum()
    Viy = scipy.linalg.cho_solve(L, y)
    r_quad = y @ Viy
    logdet_x = 0.0
    if p > 0:
        ViX = scipy.linalg.cho_solve(L, X)
        A = X.T @ ViX
        b = np.linalg.solve(A, X.T @ Viy)
        r = y - X @ b
        r_quad = r @ scipy.linalg.cho_solve(L, r)
        logdet_x = np.linalg.slogdet(A)[1]
    if a.reml:
        return -0.5 * ((n - p) * np.log(2 * np.pi) + logdet + logdet_x + r_quad)
    return -0.5 * (n * np.log(2 * np.pi) + logdet + r_quad)


free = [0, 1, 3] if a.fix_nu else [0, 1, 2, 3]


def full(v):
    lt = np.empty(4)
    lt[free] = v
    if a.fix_nu:
        lt[2] = np.log(a.fix_nu)
    return lt


def f(v):
    return -loglik(full(v))


# Starts around the OLS residual variance and the median distance.
r0 = y - X @ np.linalg.lstsq(X, y, rcond=None)[0] if p > 0 else y
v0 = (r0 @ r0) / (n - p)
med = np.median(hu[hu > 0])
starts = []
for s2f, rf, nu in ((0.2, 0.5, 0.5), (0.8, 2.0, 2.5)):
    st = [np.log(s2f * v0), np.log(rf * med)] + ([] if a.fix_nu else [np.log(nu)]) + [np.log((1 - s2f) * v0)]
    starts.append(np.array(st))
best = None
for st in starts:
    res = scipy.optimize.minimize(f, st, method="Nelder-Mead",
                                  options={"xatol": 1e-4, "fatol": 1e-8, "maxfev": 1500, "adaptive": True})
    if best is None or res.fun < best.fun:
        best = res
x = best.x
fx = f(x)
# Newton polish on central differences (step d in the log parameters).
d = 1e-4
k = len(x)
E = np.eye(k) * d
for _ in range(20):
    g = np.array([(f(x + E[i]) - f(x - E[i])) / (2 * d) for i in range(k)])
    H = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            if i == j:
                H[i, i] = (f(x + E[i]) - 2 * fx + f(x - E[i])) / d**2
            else:
                H[i, j] = H[j, i] = (f(x + E[i] + E[j]) - f(x + E[i] - E[j]) - f(x - E[i] + E[j]) + f(x - E[i] - E[j])) / (4 * d * d)
    step = np.linalg.solve(H, g)
    xn = x - step
    fn = f(xn)
    if not fn <= fx:
        break
    x, fx = xn, fn
    if np.max(np.abs(step)) < 1e-9:
        break
lt = full(x)
print(" ".join(repr(float(v)) for v in np.exp(lt)), repr(float(-fx)))
