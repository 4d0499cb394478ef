#!/usr/bin/env bash
# GRM side by side: panoramix grm vs plink2 --make-rel square bin vs plink1.9 --make-rel square bin
# on the same simulated .bed, same threads. Prints median wall times over REPS runs, the ratios,
# and checks that the matrices agree.
#   bench/grm_vs_plink.sh [SAMPLES VARIANTS [MISSING [THREADS [REPS]]]]
# Default: 3000 x 60000, 1 % missing, all cores, 3 repetitions. Needs build/panoramix, plink2,
# plink1.9 (skipped with a note when absent), python3 with numpy for the check (optional).
# PANORAMIX=path picks the binary; BENCH_DIR=dir keeps the data and outputs there. BLAS_AB=1 adds
# a run of the same binary with PMX_TABLE_CROSSPROD=blas (the FP64 route instead of AMX-INT8 where
# the CPU has it), interleaved like the rest, for a same-binary A/B.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PANORAMIX:-$root/build/panoramix}
[ -x "$bin" ] || bin=$root/build-cpu/panoramix
bin=$(realpath "$bin")
n=${1:-3000}; m=${2:-60000}; miss=${3:-0.01}; threads=${4:-$(nproc)}; reps=${5:-3}
work=${BENCH_DIR:-$(mktemp -d)}
cd "$work"
echo "# grm_vs_plink: $n samples x $m variants, missing $miss, threads $threads, reps $reps"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date $(date -u +%F)"
echo "# command: bench/grm_vs_plink.sh $n $m $miss $threads $reps"
"$bin" simulate --samples "$n" --variants "$m" --missing "$miss" --seed 42 --out data >/dev/null

# Largest |a - b| over two float64 files (numpy when present, else the array module).
max_abs_diff() {
  command -v python3 >/dev/null || return 0
  python3 - "$1" "$2" "$3" <<'PY'
import sys
from array import array
def load(p):
    a = array('d')
    with open(p, 'rb') as f:
        a.frombytes(f.read())
    return a
try:
    import numpy as np
    d = np.abs(np.fromfile(sys.argv[1]) - np.fromfile(sys.argv[2])).max()
except ImportError:
    d = max(abs(x - y) for x, y in zip(load(sys.argv[1]), load(sys.argv[2])))
print('%s = %.2e' % (sys.argv[3], d))
PY
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Runs are interleaved (panoramix, then each peer, REPS rounds) so every tool sees the same load;
# PEERS="plink2" skips plink1.9, VANRADEN=0 skips the VanRaden run.
peers=${PEERS:-plink2 plink1.9}
vr=${VANRADEN:-1}
tools="pmx"; [ "${BLAS_AB:-0}" = 1 ] && tools="$tools pmx_blas"; [ "$vr" = 1 ] && tools="$tools pmx_vr"
for peer in $peers; do
  if command -v $peer >/dev/null; then tools="$tools $peer"; else echo "$peer: not installed, skipped"; fi
done
run_tool() {
  case $1 in
    pmx) "$bin" grm --bfile data --out pmx --threads "$threads" ;;
    pmx_vr) "$bin" grm --bfile data --out pmx_vr --method vanraden --threads "$threads" ;;
    pmx_blas) PMX_TABLE_CROSSPROD=blas "$bin" grm --bfile data --out pmx_blas --threads "$threads" ;;
    plink1.9) plink1.9 --bfile data --keep-allele-order --make-rel square bin --out plink1.9 --threads "$threads" ;;
    *) $1 --bfile data --make-rel square bin --out $1 --threads "$threads" ;;
  esac
}
rm -f times_* ratios_*
for ((r = 0; r < reps; ++r)); do
  line="run $r:"
  for tool in $tools; do
    t0=$(date +%s.%N); run_tool $tool >/dev/null 2>&1; t1=$(date +%s.%N)
    t=$(echo "$t1 - $t0" | bc -l); echo "$t" >>"times_$tool"
    line="$line $tool $(printf %.2f "$t") s;"
    [ $tool = pmx ] && t_this=$t
    [ $tool != pmx ] && { [ ${tool#pmx} = $tool ] || [ $tool = pmx_blas ]; } && echo "$t / $t_this" | bc -l >>"ratios_$tool"
  done
  echo "$line load $(cut -d' ' -f1-3 /proc/loadavg)"
done
t_pmx=$(median <times_pmx)
printf "%-34s %9.2f s (median)\n" "panoramix grm (standardized)" "$t_pmx"
if [ -f times_pmx_blas ]; then
  printf "%-34s %9.2f s (median)  AMX route is %.2fx faster (median of the per-round ratios)\n" \
    "panoramix grm, PMX_TABLE_CROSSPROD=blas" "$(median <times_pmx_blas)" "$(median <ratios_pmx_blas)"
fi
[ "$vr" = 1 ] && printf "%-34s %9.2f s (median)\n" "panoramix grm --method vanraden" "$(median <times_pmx_vr)"
for peer in $peers; do
  [ -f "times_$peer" ] || continue
  t=$(median <"times_$peer")
  printf "%-34s %9.2f s (median)  panoramix is %.2fx faster (ratio of medians; median of the per-round ratios %.2fx)\n" \
    "$peer --make-rel square bin" "$t" "$(echo "$t / $t_pmx" | bc -l)" "$(median <"ratios_$peer")"
  max_abs_diff pmx.rel.bin "$peer.rel.bin" "  max |panoramix - $peer|"
done
[ -f pmx_blas.rel.bin ] && max_abs_diff pmx.rel.bin pmx_blas.rel.bin "  max |panoramix (default route) - panoramix (blas route)|"
grep '^Time' pmx.log | sed 's/^/  panoramix stage: /'
