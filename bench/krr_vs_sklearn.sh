#!/usr/bin/env bash
# `panoramix krr` against scikit-learn's KernelRidge on the same data and the same cores:
# simulated N samples x M SNPs (1 % missing calls), 4 phenotypes, Gaussian kernel, fp64. scikit-learn
# gets the mean-imputed dosages as a dense float64 matrix (decoding not timed) and fits all
# phenotypes at once; panoramix reads the .bed. Both with THREADS threads (OpenBLAS for numpy).
# Prints each wall time (median of REPS) and the largest relative difference of the weights.
# Usage: bench/krr_vs_sklearn.sh [BUILD_DIR] ; env N (5000), M (10000), THREADS (2), REPS (3)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build}/panoramix
N=${N:-5000} M=${M:-10000} THREADS=${THREADS:-2} REPS=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" simulate --samples "$N" --variants "$M" --missing 0.01 --seed 21 --traits 4 --qtl 100 --h2 0.5 \
  --chromosomes 20 --out "$tmp/s" --threads "$THREADS" > /dev/null
times=()
for r in $(seq "$REPS"); do
  s=$(date +%s.%N)
  "$bin" krr --bfile "$tmp/s" --pheno "$tmp/s.pheno" --all-pheno --gamma 1e-4 --alpha 1 --threads "$THREADS" \
    --out "$tmp/k" > /dev/null
  e=$(date +%s.%N)
  times+=("$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')")
done
ours=$(printf "%s\n" "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
OMP_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS /usr/bin/python3 - "$tmp/s" "$tmp/k.weights" "$REPS" "$ours" "$here" <<'PY'
import sys, time
import numpy as np
sys.path.insert(0, sys.argv[5] + "/tests/stats/kernel")  # plink_numpy.py, the tests' reader
from plink_numpy import read_bed, read_table
from sklearn.kernel_ridge import KernelRidge
prefix, weights, reps, ours = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
ids, _, G = read_bed(prefix)
called = ~np.isnan(G)
p = np.where(called.sum(0) > 0, np.nansum(G, 0) / (2 * np.maximum(called.sum(0), 1)), 0.5)
X = np.where(np.isnan(G), 2 * p, G)
header, ph = read_table(prefix + ".pheno")
Y = np.array([ph[i] for i in ids])
Y = Y - Y.mean(0)
times = []
for _ in range(reps):
    t = time.perf_counter()
    kr = KernelRidge(kernel="rbf", gamma=1e-4, alpha=1.0).fit(X, Y)
    times.append(time.perf_counter() - t)
W = kr.dual_coef_
w = np.array([[float(v) for v in l.split()[2:]] for l in open(weights).readlines()[1:]])
rel = np.max(np.abs(w - W) / np.max(np.abs(W), 0))
sk = sorted(times)[len(times) // 2]
print("n %d, SNPs %d, 4 phenotypes: panoramix krr %.2f s (whole command, .bed in, files out), "
      "scikit-learn KernelRidge %.2f s (fit on dense dosages), ratio %.1fx; weights differ by %.1e"
      % (X.shape[0], X.shape[1], ours, sk, sk / ours, rel))
PY
