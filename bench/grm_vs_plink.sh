#!/usr/bin/env bash
# GRM side by side: panoramix grm vs plink2 --make-rel square bin vs plink1.9 --make-rel square bin
# on the same simulated .bed, same threads. Prints median wall times over REPS runs, the ratios,
# and checks that the matrices agree.
#   bench/grm_vs_plink.sh [SAMPLES VARIANTS [MISSING [THREADS [REPS]]]]
# Default: 3000 x 60000, 1 % missing, all cores, 3 repetitions. Needs build/panoramix, plink2,
# plink1.9 (skipped with a note when absent), python3 with numpy for the check (optional).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PANORAMIX:-$root/build/panoramix}
n=${1:-3000}; m=${2:-60000}; miss=${3:-0.01}; threads=${4:-$(nproc)}; reps=${5:-3}
work=${BENCH_DIR:-$(mktemp -d)}
cd "$work"
echo "# grm_vs_plink: $n samples x $m variants, missing $miss, threads $threads, reps $reps"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date $(date -u +%F)"
echo "# command: bench/grm_vs_plink.sh $n $m $miss $threads $reps"
"$bin" simulate --samples "$n" --variants "$m" --missing "$miss" --seed 42 --out data >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
time_cmd() {  # prints the median wall time of REPS runs of "$@"
  for ((r = 0; r < reps; ++r)); do
    local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
  done | median
}

t_pmx=$(time_cmd "$bin" grm --bfile data --out pmx --threads "$threads")
printf "%-34s %9.2f s\n" "panoramix grm (standardized)" "$t_pmx"
t_vr=$(time_cmd "$bin" grm --bfile data --out pmx_vr --method vanraden --threads "$threads")
printf "%-34s %9.2f s\n" "panoramix grm --method vanraden" "$t_vr"
for peer in plink2 plink1.9; do
  if ! command -v $peer >/dev/null; then echo "$peer: not installed, skipped"; continue; fi
  extra=""; [ $peer = plink1.9 ] && extra="--keep-allele-order"
  t=$(time_cmd $peer --bfile data $extra --make-rel square bin --out $peer --threads "$threads")
  printf "%-34s %9.2f s   panoramix is %.2fx faster\n" "$peer --make-rel square bin" "$t" "$(echo "$t / $t_pmx" | bc -l)"
  py=""; for p in python3 /usr/bin/python3; do $p -c "import numpy" 2>/dev/null && py=$p && break; done
  if [ -n "$py" ]; then
    $py -c "import numpy as np; a=np.fromfile('pmx.rel.bin'); b=np.fromfile('$peer.rel.bin'); print('  max |panoramix - $peer| = %.2e' % np.abs(a-b).max())"
  fi
done
grep '^Time' pmx.log | sed 's/^/  panoramix stage: /'
