#!/usr/bin/env bash
# Issues #4 and #25 end to end: .bed on local disk -> GRM files written, on the GPU, with the time
# per stage from panoramix's log. Default 22,016 samples x 1,000,000 variants (5.5 GB of 2-bit
# data). The standardised GRM runs twice in the same session: on its int8 tensor-core route (the
# default) and in FP64 (PMX_TABLE_CROSSPROD=blas), and the two .grm.bin are compared. A smaller
# set (SMALL_N x SMALL_M) is then written as float64 .rel.bin by both routes and compared, since
# .grm.bin holds float32.
# Each large run is repeated REPS times (default 3): quote the median. Every run writes new files
# after a `sync` (outside its time): none replaces an output or waits for another run's writeback.
#   bash bench/cuda_grm_end_to_end.sh BIN [SAMPLES VARIANTS [DIR [SMALL_N SMALL_M]]]
set -u
P=${1:-build-gpu/panoramix}; n=${2:-22016}; m=${3:-1000000}; D=${4:-/tmp/pmx_e2e}
sn=${5:-4000}; sm=${6:-100000}; reps=${REPS:-3}
PY=$(command -v python3)
mkdir -p "$D"
echo "== end to end: $n x $m, $(nproc) CPU cores, $(nvidia-smi --query-gpu=name --format=csv,noheader)"
t0=$(date +%s)
"$P" simulate --samples "$n" --variants "$m" --seed 5 --out "$D/big" >/dev/null 2>&1 || { echo "simulate failed"; exit 1; }
echo "simulated in $(( $(date +%s) - t0 )) s: $(stat -c %s "$D/big.bed") bytes"
run() {  # label method format prefix data [env...]
  local label=$1 method=$2 format=$3 out=$4 data=$5; shift 5
  # Each run writes new files, as a lone run would, with no writeback of earlier runs pending: the
  # outputs of this label's last round are removed and the page cache synced first (outside the
  # time). Replacing a 1 GiB output costs ~0.7 s on the H200 machine's disk, whose ext4 is mounted
  # with `discard`: freeing the old file's blocks trims them, inside the rename.
  rm -f "$out".grm.bin "$out".grm.N.bin "$out".grm.id "$out".rel.bin "$out".rel.id
  sync
  local t0=$(date +%s%N)
  env "$@" timeout 400 "$P" grm --bfile "$data" --method "$method" --device cuda --format "$format" --out "$out" \
    >/dev/null 2>&1 || echo "grm $label failed or timed out"
  echo "grm $label (--method $method --format $format $*): $(( ($(date +%s%N) - t0) / 1000000 )) ms wall"
  grep -E '^Time|Backend|int8' "$out.log" | sed 's/^/   /'
}
compare() {  # a b dtype
  "$PY" - "$1" "$2" "$3" <<'PYEOF'
import sys
try:
    import numpy as np
except ImportError:
    print("   (numpy absent: no comparison)"); sys.exit(0)
a = np.fromfile(sys.argv[1], dtype=sys.argv[3]); b = np.fromfile(sys.argv[2], dtype=sys.argv[3])
ok = np.isfinite(a) & np.isfinite(b)
d = np.abs(a[ok].astype(np.float64) - b[ok].astype(np.float64))
print(f"   {sys.argv[1].split('/')[-1]} int8 vs FP64: {a.size} values, max |diff| {d.max():.3g}, "
      f"differing {int((d > 0).sum())}, scale max |G| {np.abs(b[ok]).max():.3g}")
PYEOF
}
for r in $(seq "$reps"); do
  run "vanraden #$r" vanraden gcta "$D/vanraden" "$D/big"
  run "standardized-int8 #$r" standardized gcta "$D/std_int8" "$D/big"
  run "standardized-fp64 #$r" standardized gcta "$D/std_fp64" "$D/big" PMX_TABLE_CROSSPROD=blas
done
compare "$D/std_int8.grm.bin" "$D/std_fp64.grm.bin" float32
"$P" simulate --samples "$sn" --variants "$sm" --seed 6 --out "$D/small" >/dev/null 2>&1 || { echo "simulate failed"; exit 1; }
run small-int8 standardized rel-bin "$D/small_int8" "$D/small"
run small-fp64 standardized rel-bin "$D/small_fp64" "$D/small" PMX_TABLE_CROSSPROD=blas
compare "$D/small_int8.rel.bin" "$D/small_fp64.rel.bin" float64
