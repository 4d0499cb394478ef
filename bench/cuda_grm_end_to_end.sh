#!/usr/bin/env bash
# Issue #4 end to end: .bed on local disk -> .grm.bin written, on the GPU, with the time per stage
# from panoramix's log. Default 22,016 samples x 1,000,000 variants (5.5 GB of 2-bit data).
#   bash bench/cuda_grm_end_to_end.sh BIN [SAMPLES VARIANTS [DIR]]
set -u
P=${1:-build-gpu/panoramix}; n=${2:-22016}; m=${3:-1000000}; D=${4:-/tmp/pmx_e2e}
mkdir -p "$D"
echo "== end to end: $n x $m, $(nproc) CPU cores, $(nvidia-smi --query-gpu=name --format=csv,noheader)"
t0=$(date +%s)
"$P" simulate --samples "$n" --variants "$m" --seed 5 --out "$D/big" >/dev/null 2>&1 || { echo "simulate failed"; exit 1; }
echo "simulated in $(( $(date +%s) - t0 )) s: $(stat -c %s "$D/big.bed") bytes"
for method in vanraden standardized; do
  t0=$(date +%s%N)
  timeout 400 "$P" grm --bfile "$D/big" --method $method --device cuda --format gcta --out "$D/$method" >/dev/null 2>&1 \
    || echo "grm $method failed or timed out"
  echo "grm --method $method --device cuda --format gcta: $(( ($(date +%s%N) - t0) / 1000000 )) ms wall"
  grep -E '^Time|Backend' "$D/$method.log" | sed 's/^/   /'
  ls -l "$D/$method.grm.bin" 2>/dev/null | awk '{print "   .grm.bin bytes:", $5}'
done
