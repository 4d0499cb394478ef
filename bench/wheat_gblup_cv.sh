#!/usr/bin/env bash
# Genomic prediction on the CIMMYT wheat lines (BGLR wheat: 599 lines, 1279 DArT markers, grain
# yield in 4 environments, the published 10-fold assignment): for each environment and fold, mask
# the fold's phenotypes, fit gBLUP with REML on the rest (standardized GRM of all 599 lines), and
# correlate predicted (GEBV) and observed yield within the masked lines. Prints the mean (and SD)
# over the 10 folds per environment.
#
# Usage: bench/wheat_gblup_cv.sh [BUILD_DIR] [DATA_DIR]
#   BUILD_DIR  holds the panoramix binary (default build)
#   DATA_DIR   holds wheat_dart.{bed,bim,fam} and wheat_Y_4env_folds.csv (default ../shared/data/bglr_wheat)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build}/panoramix
data=${2:-$here/../shared/data/bglr_wheat}
[[ -x $bin ]] || { echo "no panoramix binary at $bin" >&2; exit 1; }
[[ -f $data/wheat_dart.bed && -f $data/wheat_Y_4env_folds.csv ]] || { echo "wheat data not found in $data" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" grm --bfile "$data/wheat_dart" --format gcta --out "$tmp/g" --threads 2 >/dev/null
# CSV "id","1","2","4","5","fold" -> FID IID y1 y2 y4 y5 fold (plain whitespace table).
tr -d '"' < "$data/wheat_Y_4env_folds.csv" | awk -F, 'NR > 1 { print $1, $1, $2, $3, $4, $5, $6 }' > "$tmp/all.txt"

printf "%-6s %-10s %-8s %s\n" env mean_r sd_r "per-fold r (folds 1..10)"
for env in 1 2 3 4; do
  name=$(head -1 "$data/wheat_Y_4env_folds.csv" | tr -d '"' | cut -d, -f$((env + 1)))
  rs=()
  for fold in 1 2 3 4 5 6 7 8 9 10; do
    awk -v c=$((env + 2)) -v f=$fold 'BEGIN { print "FID IID y" } { print $1, $2, ($7 == f ? "NA" : $c) }' \
      "$tmp/all.txt" > "$tmp/p.txt"
    "$bin" gblup --grm "$tmp/g" --pheno "$tmp/p.txt" --pheno-name y --reml --out "$tmp/f" --threads 2 >/dev/null
    # Pearson r of GEBV and observed yield over the masked lines of this fold.
    r=$(awk -v c=$((env + 2)) -v f=$fold '
      FNR == NR { if ($7 == f) obs[$1 " " $2] = $c; next }
      FNR > 1 && (($1 " " $2) in obs) { x = $3; y = obs[$1 " " $2]; n++; sx += x; sy += y; sxx += x*x; syy += y*y; sxy += x*y }
      END { printf "%.4f", (sxy - sx*sy/n) / sqrt((sxx - sx*sx/n) * (syy - sy*sy/n)) }' "$tmp/all.txt" "$tmp/f.gebv")
    rs+=("$r")
  done
  printf "%s\n" "${rs[@]}" | awk -v e="$name" -v all="${rs[*]}" '
    { s += $1; ss += $1 * $1; n++ }
    END { m = s / n; printf "%-6s %-10.4f %-8.4f %s\n", e, m, sqrt((ss - n*m*m) / (n - 1)), all }'
done
