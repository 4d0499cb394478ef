#!/usr/bin/env bash
# Set-up of a single-step evaluation at scale (issue #7), CPU: simulates the data with
# `panoramix simulate-pedigree` (time and peak memory), then times the pedigree pieces with
# bench_single_step_setup: reading, inbreeding, A⁻¹, the A⁻¹ product, the CHOLMOD factor of A^{nn}
# (pedigree pruned to the genotyped animals and their ancestors) and one A_gg⁻¹ product, t = 1, 3.
#   bench/single_step_setup.sh [BUILD] [ANIMALS] [GENOTYPED] [VARIANTS] [THREADS] [DIR]
# Defaults: build, 5,000,000 animals (50,000 founders, 15 generations, 500 sires each, dams from
# the previous 3 generations), 500,000 genotyped (every sire, then the youngest), 50,000 variants
# on 30 chromosomes, 3 traits (h2 0.3, 0.4, 0.2), all threads. DIR keeps the data (default: a
# temporary directory, removed at exit); VARIANTS = 0 simulates 64 variants, for the pedigree
# pieces alone. Extra options for bench_single_step_setup in BENCH_OPTS (e.g. "--full --reps 5").
set -euo pipefail
BUILD=${1:-build}
N=${2:-5000000}
GENOTYPED=${3:-500000}
VARIANTS=${4:-50000}
THREADS=${5:-0}
DIR=${6:-}
if [ -z "$DIR" ]; then
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/single_step_setup.XXXXXX")
  trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR"
CHROMS=30
if [ "$VARIANTS" = 0 ]; then VARIANTS=64; CHROMS=1; fi
QTL=$((VARIANTS < 2000 ? VARIANTS / 2 : 1000))
# Wall time and peak memory of each program: GNU time, else Python's getrusage of the child.
if [ -x /usr/bin/time ]; then
  TIME=(/usr/bin/time -f "wall %e s, peak RSS %M KB")
else
  TIME=(python3 -c 'import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[1:])
print("wall %.2f s, peak RSS %d KB" % (time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss), file=sys.stderr)
sys.exit(rc)')
fi

echo "== simulate-pedigree: $N animals, $GENOTYPED genotyped x $VARIANTS variants, threads $THREADS"
echo "   $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) memory"
"${TIME[@]}" "$BUILD/panoramix" simulate-pedigree --animals "$N" --founders 50000 --generations 15 \
  --sires 500 --genotyped "$GENOTYPED" --variants "$VARIANTS" --chromosomes "$CHROMS" --qtl "$QTL" \
  --h2 0.3,0.4,0.2 --threads "$THREADS" --out "$DIR/sim" > /dev/null
grep -E "^Time|^Simulated" "$DIR/sim.log"
ls -l "$DIR"/sim.bed "$DIR"/sim.ped | awk '{print "   " $5, $9}'

echo "== pedigree set-up (bench_single_step_setup)"
# shellcheck disable=SC2086
"${TIME[@]}" "$BUILD/bench/bench_single_step_setup" --ped "$DIR/sim.ped" --fam "$DIR/sim.fam" \
  --threads "$THREADS" ${BENCH_OPTS:-}
