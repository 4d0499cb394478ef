#!/usr/bin/env bash
# Issue #6 speed: the thesis' pipeline on one GPU — read, GRM, 10 PCs, gBLUP with known h² — and
# REML on top, for 50,000 samples × 727,605 variants (A100 in the paper: 95 s; target ≤ 15 s, REML
# ≤ 30 s more). Times per stage come from panoramix's logs.
#   bash bench/gblup_pipeline_gpu.sh BIN [SAMPLES VARIANTS [DIR [METHOD]]]
set -u
P=${1:-build-gpu/panoramix}; n=${2:-50000}; m=${3:-727605}; D=${4:-/tmp/pmx_pipeline}; method=${5:-vanraden}
mkdir -p "$D"
echo "== pipeline: $n samples x $m variants, GRM $method, $(nproc) CPU cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
if [ ! -s "$D/sim.bed" ]; then
  t0=$(date +%s)
  "$P" simulate --samples "$n" --variants "$m" --seed 11 --out "$D/sim" >/dev/null 2>&1 || { echo "simulate failed"; exit 1; }
  echo "simulated in $(( $(date +%s) - t0 )) s: $(stat -c %s "$D/sim.bed") bytes"
  awk '{print $1, $2}' "$D/sim.fam" > "$D/ids"
fi
# The trait: noise plus a shift per simulated subpopulation (3 contiguous groups of samples), a
# signal G carries, so REML's h² is interior. Timing does not depend on the values.
awk -v n="$n" 'BEGIN{srand(5); print "FID IID y"} {g = int(3 * (NR - 1) / n); u1 = rand(); u2 = rand();
  z = sqrt(-2 * log(u1 + 1e-300)) * cos(6.283185307 * u2); print $1, $2, g * 0.8 + z}' "$D/ids" > "$D/pheno.txt"

run() {  # label, then the command; prints wall time and the log's stage times
  local label=$1; shift
  local t0=$(date +%s%N)
  timeout 500 "$@" >/dev/null 2>"$D/err.txt" || { echo "$label FAILED:"; tail -5 "$D/err.txt"; }
  echo "$label: $(( ($(date +%s%N) - t0) / 1000000 )) ms wall"
}
run "pca (10 PCs, randomized)" "$P" pca --bfile "$D/sim" --pcs 10 --device cuda --out "$D/pca"
grep -E '^Time' "$D/pca.log" | sed 's/^/   /'
run "gblup --h2 0.5" "$P" gblup --bfile "$D/sim" --pheno "$D/pheno.txt" --pheno-name y --h2 0.5 --no-pev --method "$method" \
  --device cuda --out "$D/gblup"
grep -E '^Time' "$D/gblup.log" | sed 's/^/   /'
run "gblup --reml" "$P" gblup --bfile "$D/sim" --pheno "$D/pheno.txt" --pheno-name y --reml --no-pev --method "$method" \
  --device cuda --out "$D/reml"
grep -E '^Time|h2|sigma' "$D/reml.log" | sed 's/^/   /'
cat "$D/reml.vc" 2>/dev/null | sed 's/^/   vc: /'
