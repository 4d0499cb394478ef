#!/usr/bin/env bash
# make demo: simulate a dataset, then run freq and the GRM on it (both methods, both formats).
set -euo pipefail
bin=${1:-build/panoramix}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p demo && cd demo
echo "== panoramix demo (outputs in ./demo) =="
"$bin" simulate --samples 2000 --variants 50000 --missing 0.01 --seed 7 --out sim
"$bin" freq --bfile sim --out sim
"$bin" grm --bfile sim --out sim
"$bin" grm --bfile sim --out sim --format gcta
"$bin" grm --bfile sim --out sim_vr --method vanraden
echo
echo "first lines of sim.afreq:"
head -4 sim.afreq
echo
echo "timings (from the .log files):"
grep -h '^Time' sim.log sim_vr.log
ls -l sim.rel.bin sim.grm.bin sim.grm.N.bin sim_vr.rel.bin
