#!/usr/bin/env bash
# Accuracy of single-step vs pedigree BLUP on simulated truth: correlation of EBV with the true
# breeding value (.tbv) for the genotyped animals of the youngest generation (no records of their
# own), per trait, for pblup and each genomic model asked for.
#   bench/ssblup_accuracy.sh [PANORAMIX] [ANIMALS] [GENOTYPED] [VARIANTS] [H2S] [MODELS] [SEED]
# Defaults: build/panoramix, 20,000 animals, 3,000 genotyped (every sire, then the youngest),
# 10,000 variants, h2 0.3 (one trait; "0.3,0.4,0.2" gives 3 traits with missing records),
# models "ssgblup sssnpblup", seed 1; w = 0.2, tol 1e-12.
set -euo pipefail
BIN=${1:-build/panoramix}
ANIMALS=${2:-20000}
GENOTYPED=${3:-3000}
VARIANTS=${4:-10000}
H2=${5:-0.3}
MODELS=${6:-"ssgblup sssnpblup"}
SEED=${7:-1}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ssblup_accuracy.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

"$BIN" simulate-pedigree --animals "$ANIMALS" --genotyped "$GENOTYPED" --variants "$VARIANTS" \
  --h2 "$H2" --seed "$SEED" --out "$DIR/sim" > /dev/null
T=$(awk -F, '{print NF}' <<< "$H2")
TRAITS=$(seq -s, -f "trait%g" 1 "$T")
echo "simulated: $ANIMALS animals, $GENOTYPED genotyped x $VARIANTS variants, h2 $H2, seed $SEED"
echo "young genotyped animals: $(awk 'NR > 1 { if ($2 > m) m = $2; g[NR] = $2; t[NR] = $3 }
  END { for (i in g) if (g[i] == m && t[i] == 1) c++; print c }' "$DIR/sim.tbv")"

# corr(EBV, TBV) over the youngest generation's genotyped animals, one number per trait
accuracy() {
  awk -v t="$T" 'FNR == 1 { next }
    NR == FNR { gen[$1] = $2; typ[$1] = $3; for (k = 1; k <= t; k++) tbv[$1, k] = $(3 + k);
                if ($2 > m) m = $2; next }
    gen[$1] == m && typ[$1] == 1 { n++; for (k = 1; k <= t; k++) { x = $(1 + k); y = tbv[$1, k];
      sx[k] += x; sy[k] += y; sxx[k] += x * x; syy[k] += y * y; sxy[k] += x * y } }
    END { for (k = 1; k <= t; k++) {
      c = (n * sxy[k] - sx[k] * sy[k]) / sqrt((n * sxx[k] - sx[k]^2) * (n * syy[k] - sy[k]^2));
      printf "%s%.4f", (k > 1 ? " " : ""), c } print "" }' "$DIR/sim.tbv" "$1"
}

for MODEL in pblup $MODELS; do
  start=$(date +%s.%N)
  "$BIN" ssblup --ped "$DIR/sim.ped" --bfile "$DIR/sim" --pheno "$DIR/sim.pheno" --traits "$TRAITS" \
    --class herd,lact --covar dim --vc "$DIR/sim.vc" --model "$MODEL" --w 0.2 --tol 1e-12 \
    --out "$DIR/$MODEL" > /dev/null 2> "$DIR/$MODEL.err" || { cat "$DIR/$MODEL.err"; exit 1; }
  end=$(date +%s.%N)
  iters=$(tail -n 1 "$DIR/$MODEL.iter" | cut -f1)
  printf "%-10s corr(EBV, TBV) per trait: %s   (%s PCG iterations, %.1f s)\n" "$MODEL" \
    "$(accuracy "$DIR/$MODEL.ebv")" "$iters" "$(echo "$end - $start" | bc)"
  grep -E "^Set-up|^Per product" "$DIR/$MODEL.log" | sed 's/^/    /'

done
