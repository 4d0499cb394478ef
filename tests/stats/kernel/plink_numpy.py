"""PLINK filesets and phenotype tables decoded with numpy, for the scikit-learn oracles of the
krr and rr command tests (krr_sklearn_oracle.py, rr_sklearn_oracle.py)."""
import numpy as np


def read_bed(prefix):
    """(FID, IID) per sample, (ID, A1) per autosomal variant, dosages samples x autosomal variants
    (NaN = missing): X/Y/XY/MT (human codes) are dropped, as panoramix does for kernels and RR."""
    fam = [l.split() for l in open(prefix + ".fam")]
    bim = [l.split() for l in open(prefix + ".bim")]
    n, m = len(fam), len(bim)
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    assert raw[0] == 0x6C and raw[1] == 0x1B and raw[2] == 1
    rb = (n + 3) // 4
    raw = raw[3:3 + m * rb].reshape(m, rb)
    codes = np.stack([(raw >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(m, rb * 4)[:, :n]
    dos = np.choose(codes, [2.0, np.nan, 1.0, 0.0]).T
    autosomal = np.array([b[0] not in ("X", "Y", "XY", "MT", "23", "24", "25", "26") for b in bim])
    return [(f[0], f[1]) for f in fam], [(b[1], b[4]) for b, a in zip(bim, autosomal) if a], dos[:, autosomal]


def read_table(path):
    """Header (or None) and {(FID, IID): values} with NA/-9/nan/. as NaN."""
    rows = [l.split() for l in open(path) if l.strip()]
    header = rows[0][2:] if rows[0][0] in ("FID", "#FID") else None
    if header:
        rows = rows[1:]
    vals = {}
    for r in rows:
        vals[(r[0], r[1])] = [np.nan if v in ("NA", "-9", "nan", ".") else float(v) for v in r[2:]]
    return header, vals
