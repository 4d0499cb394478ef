#!/usr/bin/env bash
# LD side by side: panoramix ld --r2 square vs plink1.9 --keep-allele-order --r2 square bin on the
# same simulated .bed, same threads, runs interleaved (pmx, plink, pmx, plink, ...) so both see the
# same load. Prints each run, the medians, the ratio, the load, and checks the outputs are
# byte-identical.
#   bench/ld_vs_plink.sh [SAMPLES VARIANTS [MISSING [THREADS [REPS]]]]
# Default: 2000 x 12000, 1 % missing, 2 threads, 3 repetitions. Needs build-cpu/panoramix (or
# $PANORAMIX) and plink1.9.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PANORAMIX:-$root/build-cpu/panoramix}
n=${1:-2000}; m=${2:-12000}; miss=${3:-0.01}; threads=${4:-2}; reps=${5:-3}
work=${BENCH_DIR:-$(mktemp -d)}
cd "$work"
echo "# ld_vs_plink: $n samples x $m variants, missing $miss, threads $threads, reps $reps"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date $(date -u +%F)"
echo "# command: bench/ld_vs_plink.sh $n $m $miss $threads $reps"
"$bin" simulate --samples "$n" --variants "$m" --missing "$miss" --seed 7 --out data >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }

: >t_pmx; : >t_plink
for ((r = 0; r < reps; ++r)); do
  tp=$(wall "$bin" ld --bfile data --r2 square --out pmx --threads "$threads")
  tq=$(wall plink1.9 --bfile data --keep-allele-order --r2 square bin --out plink --threads "$threads")
  echo "$tp" >>t_pmx; echo "$tq" >>t_plink
  printf "run %d: panoramix %7.2f s  plink1.9 %7.2f s  ratio %5.2fx  load %s\n" "$r" "$tp" "$tq" \
    "$(echo "$tq / $tp" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
  cmp -s pmx.ld.bin plink.ld.bin || { echo "OUTPUTS DIFFER (pmx.ld.bin vs plink.ld.bin)"; exit 1; }
done
mp=$(median <t_pmx); mq=$(median <t_plink)
paste t_plink t_pmx | awk '{print $1 / $2}' >ratios
printf "median: panoramix %.2f s  plink1.9 %.2f s  panoramix is %.2fx faster (ratio of medians; median of the per-run ratios %.2fx; outputs byte-identical)\n" \
  "$mp" "$mq" "$(echo "$mq / $mp" | bc -l)" "$(median <ratios)"
