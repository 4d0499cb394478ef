#!/usr/bin/env bash
# Prediction accuracy of KRR (Gaussian kernel, (gamma, alpha) tuned by 5-fold CV inside each
# training set) against gBLUP (REML, standardized GRM) and RR (ridge regression on the centred
# dosages, lambda = sum 2p(1-p) (1 - h2)/h2 with h2 the REML estimate of a VanRaden gBLUP on the same
# training phenotypes: RR-BLUP) on the same folds:
#   wheat  BGLR wheat, 599 lines x 1279 DArT markers, yield in 4 environments, the published 10 folds;
#   mice   BGLR mice, 1814 x 10346 SNPs, Obesity.BMI and Obesity.BodyLength, 5 folds dealt by sample order;
#   sim    `panoramix simulate --traits`: 2000 x 5000, h2 0.6, 80 % of the genetic variance epistatic
#          (100 QTL, 100 interacting pairs), 5 folds; and 2000 x 300, h2 0.8, 80 % epistatic in 30
#          pairs (30 QTL): interactions among few markers, where a kernel's products reach them.
# Per fold the fold's phenotypes are masked; both methods see every genotype (the GRM, the kernel's
# frequencies) and predict the masked lines; Pearson r of predicted and observed over them.
# Prints mean and SD of r over folds per trait and method.
# Usage: bench/krr_prediction_cv.sh [BUILD_DIR] [DATA_DIR] [wheat|mice|sim|sim-few ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build}/panoramix
data=${2:-$here/../shared/data}
shift $(( $# >= 2 ? 2 : $# )) || true
sets=("$@")
[[ ${#sets[@]} -gt 0 ]] || sets=(wheat mice sim sim-few)
threads=${THREADS:-$(nproc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# r over the masked lines: $1 observed table (FID IID y fold), $2 predictions (header; FID IID value in column $3), fold $4
pearson() {
  awk -v f="$4" -v col="$3" '
    FNR == NR { if ($4 == f && $3 != "NA") obs[$1 " " $2] = $3; next }
    FNR > 1 && (($1 " " $2) in obs) { x = $col; y = obs[$1 " " $2]; n++; sx += x; sy += y; sxx += x*x; syy += y*y; sxy += x*y }
    END { printf "%.4f", (sxy - sx*sy/n) / sqrt((sxx - sx*sx/n) * (syy - sy*sy/n)) }' "$1" "$2"
}

summary() {  # name method r...
  local name=$1 method=$2; shift 2
  printf "%s\n" "$@" | awk -v e="$name" -v m="$method" '{ s += $1; ss += $1 * $1; n++ }
    END { mu = s / n; printf "%-22s %-6s %-8.4f %-8.4f (%d folds)\n", e, m, mu, sqrt((ss - n*mu*mu) / (n - 1)), n }'
}

# run_set NAME BFILE TABLE(FID IID y fold) FOLDS GAMMA_GRID
run_set() {
  local name=$1 bfile=$2 table=$3 folds=$4 grid=$5
  "$bin" grm --bfile "$bfile" --format gcta --out "$tmp/g" --threads "$threads" >/dev/null
  "$bin" grm --bfile "$bfile" --method vanraden --format gcta --out "$tmp/gv" --threads "$threads" >/dev/null
  # sum of 2p(1-p) over the autosomal variants (the VanRaden scale; rr drops X/Y/MT too)
  "$bin" freq --bfile "$bfile" --out "$tmp/f" >/dev/null
  local s2pq
  s2pq=$(awk 'NR > 1 && $1 !~ /^(X|Y|XY|MT|23|24|25|26)$/ { p = $5; s += 2 * p * (1 - p) } END { printf "%.10g", s }' "$tmp/f.afreq")
  local rg=() rk=() rr=()
  for fold in $(seq 1 "$folds"); do
    awk -v f="$fold" 'BEGIN { print "FID IID y" } { print $1, $2, ($4 == f ? "NA" : $3) }' "$table" > "$tmp/p.txt"
    "$bin" gblup --grm "$tmp/g" --pheno "$tmp/p.txt" --pheno-name y --reml --out "$tmp/gb" --threads "$threads" >/dev/null
    rg+=("$(pearson "$table" "$tmp/gb.gebv" 3 "$fold")")
    "$bin" krr --bfile "$bfile" --pheno "$tmp/p.txt" --pheno-name y --cv 5 --gamma-grid "$grid" \
      --alpha-grid 0.03,0.1,0.3,1,3 --predict "$bfile" --out "$tmp/k" --threads "$threads" >/dev/null
    rk+=("$(pearson "$table" "$tmp/k.pred" 3 "$fold")")
    "$bin" gblup --grm "$tmp/gv" --pheno "$tmp/p.txt" --pheno-name y --reml --no-pev --out "$tmp/gvb" --threads "$threads" >/dev/null
    local h2 lambda
    h2=$(awk '$1 == "h2" { print $2 }' "$tmp/gvb.vc")
    lambda=$(awk -v s="$s2pq" -v h="$h2" 'BEGIN { if (h < 1e-4) h = 1e-4; printf "%.10g", s * (1 - h) / h }')
    "$bin" rr --bfile "$bfile" --pheno "$tmp/p.txt" --pheno-name y --lambda "$lambda" --predict "$bfile" \
      --out "$tmp/r" --threads "$threads" >/dev/null
    rr+=("$(pearson "$table" "$tmp/r.pred" 3 "$fold")")
  done
  summary "$name" gblup "${rg[@]}"
  summary "$name" rr "${rr[@]}"
  summary "$name" krr "${rk[@]}"
}

printf "%-22s %-6s %-8s %-8s\n" trait method mean_r sd_r
for set in "${sets[@]}"; do
  case $set in
    wheat)
      w=$data/bglr_wheat
      tr -d '"' < "$w/wheat_Y_4env_folds.csv" | awk -F, 'NR > 1 { print $1, $1, $2, $3, $4, $5, $6 }' > "$tmp/w.txt"
      for env in 1 2 3 4; do
        awk -v c=$((env + 2)) '{ print $1, $2, $c, $7 }' "$tmp/w.txt" > "$tmp/t.txt"
        run_set "wheat env $env" "$w/wheat_dart" "$tmp/t.txt" 10 1e-4,3e-4,1e-3,3e-3
      done ;;
    mice)
      m=$data/bglr_mice
      for trait in Obesity.BMI Obesity.BodyLength; do
        /usr/bin/python3 - "$m/mice_pheno.csv" "$trait" > "$tmp/t.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
c = rows[0].index(sys.argv[2])
for k, r in enumerate(rows[1:]):
    print(r[0], r[0], r[c] if r[c] not in ("", "NA") else "NA", k % 5 + 1)
PY
        run_set "mice $trait" "$m/mice" "$tmp/t.txt" 5 1e-5,3e-5,1e-4,3e-4
      done ;;
    sim)
      "$bin" simulate --samples 2000 --variants 5000 --seed 11 --traits 1 --qtl 100 --epistasis 100 --h2 0.6 \
        --epistatic-share 0.8 --out "$tmp/sim" --threads "$threads" >/dev/null
      awk 'NR > 1 { print $1, $2, $3, (NR - 2) % 5 + 1 }' "$tmp/sim.pheno" > "$tmp/t.txt"
      run_set "sim epistatic 0.8" "$tmp/sim" "$tmp/t.txt" 5 1e-5,3e-5,1e-4,3e-4 ;;
    sim-few)
      "$bin" simulate --samples 2000 --variants 300 --seed 12 --traits 1 --qtl 30 --epistasis 30 --h2 0.8 \
        --epistatic-share 0.8 --out "$tmp/sim2" --threads "$threads" >/dev/null
      awk 'NR > 1 { print $1, $2, $3, (NR - 2) % 5 + 1 }' "$tmp/sim2.pheno" > "$tmp/t.txt"
      run_set "sim 300 SNPs 30 pairs" "$tmp/sim2" "$tmp/t.txt" 5 1e-3,3e-3,1e-2,3e-2 ;;
  esac
done
