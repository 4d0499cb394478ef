#!/usr/bin/env bash
# Times `panoramix pedigree --ainv` on the pathological pedigrees of issue #29 and on a deep but
# realistic one, each run under a time limit:
#   chain1  1,000,001 animals, each the child of the one before it (one parent known)
#   chainB  the same chain with a dam of its own for each animal (2,000,001 animals, F = 0)
#   chainC  1,000,001 animals, each the child of the one before it and of the one before that
#           (even animals sires, odd ones dams: ever closer inbreeding, F -> 1)
#   sp40    `simulate-pedigree`: ANIMALS animals, 40 generations, 500 sires each
#   bench/pedigree_pathological.sh [PANORAMIX ...] (default build/panoramix); env LIMIT (seconds,
#   default 300), ANIMALS (default 3000000), THREADS (default 2), PEDS (default "chain1 chainB
#   chainC sp40": which to run), KEEP=1 keeps the files.
# Each binary runs each pedigree in turn (interleaved); prints wall time, exit status and the
# log's stage times and depth line.
set -uo pipefail
BINS=("${@:-build/panoramix}")
LIMIT=${LIMIT:-300}
ANIMALS=${ANIMALS:-3000000}
THREADS=${THREADS:-2}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/pedigree_pathological.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT
n=1000001
awk -v n=$n 'BEGIN{print "a1 0 0"; for(i=2;i<=n;i++) print "a" i, "a" i-1, 0}' > "$DIR/chain1.ped"
awk -v n=$n 'BEGIN{print "a1 0 0"; for(i=2;i<=n;i++) print "a" i, "a" i-1, "f" i}' > "$DIR/chainB.ped"
awk -v n=$n 'BEGIN{print "a1 0 0"; print "a2 0 0";
  for(i=3;i<=n;i++) print "a" i, (i%2 ? "a" i-1 : "a" i-2), (i%2 ? "a" i-2 : "a" i-1)}' > "$DIR/chainC.ped"
"${BINS[0]}" simulate-pedigree --animals "$ANIMALS" --founders 20000 --generations 40 --sires 500 \
  --variants 100 --chromosomes 2 --qtl 10 --genotyped 100 --threads "$THREADS" --out "$DIR/sp40" > /dev/null
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); limit ${LIMIT} s; $(date -u +%F)"
for ped in ${PEDS:-chain1 chainB chainC sp40}; do
  for bin in "${BINS[@]}"; do
    start=$(date +%s.%N)
    timeout "$LIMIT" "$bin" pedigree --ped "$DIR/$ped.ped" --out "$DIR/out" --ainv --threads "$THREADS" \
      > /dev/null 2> "$DIR/err"
    rc=$?
    end=$(date +%s.%N)
    printf '%-7s %-40s rc=%-3s wall %8.2f s  load %s\n' "$ped" "$bin" "$rc" \
      "$(awk -v a="$start" -v b="$end" 'BEGIN{print b - a}')" "$(cut -d' ' -f1 /proc/loadavg)"
    grep -E "^Time |generations|Warning" "$DIR/out.log" 2>/dev/null | sed 's/^/    /'
    rm -f "$DIR"/out.*
  done
done
