#!/usr/bin/env bash
# Issue #20 end to end on one GPU: `panoramix krr` from .bed files to .weights/.pred/.eval, K built
# and factorised in device memory (the resident path), with the stage times from its log.
# Default: 100,000 training × 50,000 SNPs, 10 phenotypes (simulated, half of the genetic variance
# epistatic), 20,000 TEST samples predicted. The simulation and the split are not timed.
#   bash bench/krr_end_to_end.sh BIN [TRAIN TEST VARIANTS [DIR [PRECISION]]]
set -u
P=${1:-build-gpu/panoramix}; n=${2:-100000}; nt=${3:-20000}; m=${4:-50000}; D=${5:-/tmp/pmx_krr_e2e}
precision=${6:-adaptive}
mkdir -p "$D"
echo "== krr end to end: $n training + $nt TEST samples x $m SNPs, 10 phenotypes, $(nproc) CPU cores," \
     "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null)"
t0=$(date +%s)
"$P" simulate --samples $((n + nt)) --variants "$m" --seed 5 --traits 10 --qtl 200 --epistasis 100 --h2 0.6 \
  --epistatic-share 0.5 --out "$D/all" >"$D/sim.out" 2>&1 || { echo "simulate failed"; cat "$D/sim.out"; exit 1; }
awk -v n="$n" 'NR <= n {print $1, $2 > "'"$D"'/train.keep"} NR > n {print $1, $2 > "'"$D"'/test.keep"}' "$D/all.fam"
"$P" make-bed --bfile "$D/all" --keep "$D/train.keep" --out "$D/train" >/dev/null 2>&1 || { echo "split failed"; exit 1; }
"$P" make-bed --bfile "$D/all" --keep "$D/test.keep" --out "$D/test" >/dev/null 2>&1 || { echo "split failed"; exit 1; }
echo "simulated and split in $(( $(date +%s) - t0 )) s"
t0=$(date +%s%N)
"$P" krr --bfile "$D/train" --pheno "$D/all.pheno" --all-pheno --gamma 3e-5 --alpha 1 --predict "$D/test" \
  --precision "$precision" --tile-accuracy 1e-3 --device "${DEVICE:-cuda}" --out "$D/krr" >"$D/krr.out" 2>&1 \
  || { echo "krr failed:"; tail -20 "$D/krr.out"; tail -30 "$D/krr.log"; exit 1; }
echo "krr --precision $precision --device ${DEVICE:-cuda}: $(( ($(date +%s%N) - t0) / 1000000 )) ms wall (target <= 30,000 ms)"
grep -E 'Time|Build on|backward error|Warning|seconds|s\)$' "$D/krr.log" | sed 's/^/   /'
echo "   .eval:"; sed 's/^/     /' "$D/krr.eval"
