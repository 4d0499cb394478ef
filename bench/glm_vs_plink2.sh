#!/usr/bin/env bash
# Issue #23 speed: `panoramix assoc --glm` against `plink2 --glm` on the same simulated fileset,
# phenotype and covariates, the same threads, median of REPS runs each, side by side in one run.
# Default 10,000 samples x 200,000 variants, 1 % missing calls, 10 covariates (the issue's CPU case).
#   bash bench/glm_vs_plink2.sh [BIN [SAMPLES VARIANTS [THREADS [REPS [DIR]]]]]
set -u
P=$(readlink -f "${1:-build/panoramix}"); n=${2:-10000}; m=${3:-200000}; t=${4:-2}; reps=${5:-3}; D=${6:-/tmp/pmx_glm}
mkdir -p "$D"; cd "$D" || exit 1
command -v plink2 >/dev/null || { echo "plink2 not found"; exit 1; }
"$P" simulate --samples "$n" --variants "$m" --missing 0.01 --traits 1 --qtl 50 --seed 7 --out sim >/dev/null 2>&1 ||
  { echo "simulate failed"; exit 1; }
awk 'BEGIN {srand(3)} NR == 1 {printf "FID IID"; for (k = 1; k <= 10; ++k) printf " c%d", k; print ""}
     {printf "%s %s", $1, $2; for (k = 1; k <= 10; ++k) printf " %.6f", rand() * k; print ""}' sim.fam > covar.txt
secs() {
  local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; e=$(date +%s%N)
  awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
a=$(for r in $(seq "$reps"); do secs "$P" assoc --bfile sim --pheno sim.pheno --covar covar.txt --glm --threads "$t" --out ours; done | median)
b=$(for r in $(seq "$reps"); do secs plink2 --bfile sim --pheno sim.pheno --covar covar.txt --glm --threads "$t" --out plink; done | median)
printf '%s samples x %s variants, 10 covariates, %s threads, median of %s:\n' "$n" "$m" "$t" "$reps"
printf '  panoramix assoc --glm  %8s s\n  plink2 --glm           %8s s\n  ratio                  %8.2fx\n' "$a" "$b" \
  "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
