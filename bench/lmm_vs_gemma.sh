#!/usr/bin/env bash
# Issue #23 speed: `panoramix assoc --lmm` against GEMMA 0.98.5 `-lmm 1` on the same simulated
# fileset and phenotype, the same threads, side by side in one run, median of REPS runs each.
# Both start from the genotypes: GEMMA computes its centred relatedness (-gk 1) then runs -lmm 1
# with it; panoramix computes its GRM inside `assoc --lmm`. GEMMA's -lmm time alone (given K) is
# printed too. Default 5,000 samples x 100,000 variants, 1 % missing calls (the issue's CPU case).
#   bash bench/lmm_vs_gemma.sh [BIN [SAMPLES VARIANTS [THREADS [REPS [DIR]]]]]
# Also usable without GEMMA (ours only; e.g. on the GPU machine): GEMMA=0 bash bench/lmm_vs_gemma.sh ...
set -u
P=$(readlink -f "${1:-build/panoramix}"); n=${2:-5000}; m=${3:-100000}; t=${4:-2}; reps=${5:-1}; D=${6:-/tmp/pmx_lmm}
DEVICE=${DEVICE:-cpu}
mkdir -p "$D"; cd "$D" || exit 1
"$P" simulate --samples "$n" --variants "$m" --missing 0.01 --traits 1 --qtl 50 --seed 7 --out sim >/dev/null 2>&1 ||
  { echo "simulate failed"; exit 1; }
secs() {
  local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; e=$(date +%s%N)
  awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
a=$(for r in $(seq "$reps"); do secs "$P" assoc --bfile sim --pheno sim.pheno --lmm --threads "$t" --device "$DEVICE" --out ours; done | median)
printf '%s samples x %s variants, %s threads, device %s, median of %s:\n' "$n" "$m" "$t" "$DEVICE" "$reps"
printf '  panoramix assoc --lmm (GRM included)   %9s s\n' "$a"
grep -E "^Time" ours.log | sed 's/^/    /'
[ "${GEMMA:-1}" = 0 ] && exit 0
command -v gemma >/dev/null || { echo "gemma not found"; exit 1; }
# GEMMA reads the phenotype from the .fam's sixth column.
awk 'NR == FNR {if (FNR > 1) y[$1" "$2] = $3; next} {$6 = y[$1" "$2]; print}' sim.pheno sim.fam > g.fam
ln -sf sim.bed g.bed; ln -sf sim.bim g.bim
export OPENBLAS_NUM_THREADS="$t"
k=$(for r in $(seq "$reps"); do secs gemma -bfile g -gk 1 -outdir gout -o k; done | median)
b=$(for r in $(seq "$reps"); do secs gemma -bfile g -k gout/k.cXX.txt -lmm 1 -outdir gout -o g; done | median)
printf '  gemma -gk 1                             %9s s\n  gemma -lmm 1 (given K)                  %9s s\n' "$k" "$b"
grep -E "time" gout/g.log.txt | sed 's/^/    /'
printf '  ratio (GEMMA -gk + -lmm) / panoramix    %9.2fx\n' "$(awk -v a="$a" -v b="$b" -v k="$k" 'BEGIN { print (k + b) / a }')"
printf '  ratio (GEMMA -lmm alone) / panoramix    %9.2fx\n' "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
