#!/usr/bin/env bash
# .pgen reading side by side (issue #22): panoramix convert --pfile vs plink2 --pfile --make-bed on
# the same simulated fileset (plink2 --make-pgen of a panoramix simulate .bed), same threads, runs
# interleaved (pmx, plink2, pmx, plink2, ...) so both see the same load. Prints each run (wall and
# CPU = user + sys seconds), the medians and the ratios (plink2 time / panoramix time: above 1 =
# panoramix faster), the record types the .pgen holds, and checks that the .bed/.bim/.fam are
# byte-identical. On a shared machine the CPU times move less with the load than the wall times.
# Both programs link OpenBLAS, whose worker threads spin for a while after it loads even when no BLAS
# call comes; `OPENBLAS_NUM_THREADS=1 bench/pgen_vs_plink2.sh ...` takes that out of both.
#   bench/pgen_vs_plink2.sh [SAMPLES VARIANTS [MISSING [THREADS [REPS]]]]
# Default: 2000 x 50000, 1 % missing, 2 threads, 5 repetitions. Needs build-cpu/panoramix (or
# $PANORAMIX; a CUDA build spends ~0.1 s loading the CUDA libraries before main) and plink2.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PANORAMIX:-$root/build-cpu/panoramix}
n=${1:-2000}; m=${2:-50000}; miss=${3:-0.01}; threads=${4:-2}; reps=${5:-5}
work=${BENCH_DIR:-$(mktemp -d)}
cd "$work"
echo "# pgen_vs_plink2: $n samples x $m variants, missing $miss, threads $threads, reps $reps"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date $(date -u +%F)"
echo "# command: bench/pgen_vs_plink2.sh $n $m $miss $threads $reps"
echo "# plink2: $(plink2 --version | head -1); panoramix: $bin; OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}"
"$bin" simulate --samples "$n" --variants "$m" --missing "$miss" --seed 7 --out data >/dev/null
plink2 --bfile data --make-pgen --threads "$threads" --out data >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# "wall cpu" of a command in seconds (bash's time: elapsed, user + sys, to the millisecond).
timed() {
  local TIMEFORMAT="%3R %3U %3S"
  { time "$@" >/dev/null 2>&1; } 2>time.txt
  awk '{print $1, $2 + $3}' time.txt
}

: >t_pmx; : >t_plink
for ((r = 0; r < reps; ++r)); do
  tp=$(timed "$bin" convert --pfile data --out pmx --threads "$threads")
  tq=$(timed plink2 --pfile data --make-bed --out plink --threads "$threads")
  echo "$tp" >>t_pmx; echo "$tq" >>t_plink
  set -- $tp $tq
  printf "run %d: panoramix %6.3f s (cpu %6.3f)  plink2 %6.3f s (cpu %6.3f)  ratio %5.2fx  load %s\n" "$r" "$1" "$2" \
    "$3" "$4" "$(echo "$3 / $1" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
  for ext in bed bim fam; do
    cmp -s "pmx.$ext" "plink.$ext" || { echo "OUTPUTS DIFFER (pmx.$ext vs plink.$ext)"; exit 1; }
  done
done
grep -h "records:" pmx.log | sed 's/^/# /'
mp=$(cut -d' ' -f1 t_pmx | median); mq=$(cut -d' ' -f1 t_plink | median)
cp=$(cut -d' ' -f2 t_pmx | median); cq=$(cut -d' ' -f2 t_plink | median)
paste -d' ' t_plink t_pmx | awk '{print $1 / $3}' >ratios
printf "median wall: panoramix %.3f s  plink2 %.3f s  ratio %.2fx (median of the per-run ratios %.2fx)\n" \
  "$mp" "$mq" "$(echo "$mq / $mp" | bc -l)" "$(median <ratios)"
printf "median cpu:  panoramix %.3f s  plink2 %.3f s  ratio %.2fx (plink2 / panoramix; outputs byte-identical)\n" \
  "$cp" "$cq" "$(echo "$cq / $cp" | bc -l)"
