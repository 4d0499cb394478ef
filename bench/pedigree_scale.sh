#!/usr/bin/env bash
# Times `panoramix pedigree --ainv` on a simulated livestock-like pedigree.
#   bench/pedigree_scale.sh [PANORAMIX] [N] [GENERATIONS] [SIRES] [THREADS]
# Defaults: build/panoramix, 1,000,000 animals in 10 discrete generations, 200 sires used per
# generation (from the previous one), dams drawn from the females of the previous 3 generations,
# 5 % unknown sires and 5 % unknown dams; records written in random order (shuffled with a fixed
# seed) so the parents-first renumbering is exercised too. Prints the log and the wall time.
set -euo pipefail
BIN=${1:-build/panoramix}
N=${2:-1000000}
GENS=${3:-10}
SIRES=${4:-200}
THREADS=${5:-0}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/pedigree_scale.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

# Animal i (1-based) of generation g = (i-1)/per: odd offsets are males, even ones females.
awk -v n="$N" -v gens="$GENS" -v sires="$SIRES" 'BEGIN {
  srand(12345); per = int(n / gens);
  for (i = 1; i <= n; i++) {
    g = int((i - 1) / per); if (g >= gens) g = gens - 1;
    if (g == 0) { print "A" i, 0, 0; continue }
    lo = (g - 1) * per + 1;                      # first animal of the previous generation
    s = lo + 2 * int(rand() * sires);            # one of its first `sires` males
    glo = (g >= 3 ? g - 3 : 0) * per + 1;        # dams: previous three generations
    d = glo + 1 + 2 * int(rand() * int((g * per - glo) / 2));
    S = rand() < 0.05 ? "0" : "A" s;
    D = rand() < 0.05 ? "0" : "A" d;
    print "A" i, S, D;
  }
}' > "$DIR/sorted.ped"
{ echo "animal sire dam"; shuf --random-source=<(yes) "$DIR/sorted.ped"; } > "$DIR/sim.ped"
echo "simulated $(($(wc -l < "$DIR/sim.ped") - 1)) animals in $GENS generations ($SIRES sires each)"

start=$(date +%s.%N)
"$BIN" pedigree --ped "$DIR/sim.ped" --out "$DIR/sim" --ainv --threads "$THREADS" > /dev/null
end=$(date +%s.%N)
cat "$DIR/sim.log"
ls -l "$DIR"/sim.ids "$DIR"/sim.inbreeding "$DIR"/sim.ainv | awk '{print $5, $9}'
echo "wall time of panoramix pedigree --ainv: $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}') s"
