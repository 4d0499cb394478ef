#!/usr/bin/env bash
# Scale run of the single-step solver (issue #7): a simulated pedigree with genotyped young
# animals and sires, 1 and 3 traits, solved by `ssblup` to --tol; per model and trait count it
# prints the set-up by part (read, inbreeding, A^-1, A_gg^-1 = sparse Cholesky of A^nn, allele
# frequencies, genotype operand upload), the time per PCG iteration split into genotype products /
# pedigree terms (A^-1, A_gg^-1) / rest, the iterations and the total.
#
#   bench/ssblup_scale.sh BIN [ANIMALS GENOTYPED VARIANTS DIR DEVICE]
#     defaults: 5,000,000 animals, 500,000 genotyped, 50,000 variants, a temporary DIR (removed
#     at the end; a given DIR is kept, and a simulation already in it is reused), --device auto.
#   Environment: TRAITS="1 3" (trait counts: 1, or all of the simulated ones), H2=0.3,0.4,0.2 (the
#     simulated traits' heritabilities; their count sets the traits), MODELS="sssnpblup pblup", SSGTABLUP=1 adds
#     ssgtablup (its set-up forms the k_snp x k_snp matrix Z'A_gg^-1 Z: 20 GB and n_g k_snp^2
#     flops at 50,000 variants), TOL=1e-12, THREADS (default all cores), GENERATIONS=10,
#     SIRES=(ANIMALS/10,000 per generation, at least 40), MAX_ITER=5000.
# Dry run on a small machine: bench/ssblup_scale.sh build/panoramix 200000 20000 5000
# Targets (H200 + 16 cores, 5M / 500k / 50k): genotype part <= 15 ms per iteration, whole
# sssnpblup solve <= 10 min.
set -euo pipefail
BIN=${1:?usage: bench/ssblup_scale.sh BIN [ANIMALS GENOTYPED VARIANTS DIR DEVICE]}
ANIMALS=${2:-5000000}
GENOTYPED=${3:-500000}
VARIANTS=${4:-50000}
DIR=${5:-}
DEVICE=${6:-auto}
TRAITS=${TRAITS:-"1 3"}
H2=${H2:-0.3,0.4,0.2}
NTRAITS=$(awk -F, '{ print NF }' <<< "$H2")
MODELS=${MODELS:-"sssnpblup pblup"}
[[ "${SSGTABLUP:-0}" == 1 ]] && MODELS="$MODELS ssgtablup"
TOL=${TOL:-1e-12}
GENERATIONS=${GENERATIONS:-10}
SIRES=${SIRES:-$(( ANIMALS / 10000 > 40 ? ANIMALS / 10000 : 40 ))}
MAX_ITER=${MAX_ITER:-5000}
THREADS_ARG=()
[[ -n "${THREADS:-}" ]] && THREADS_ARG=(--threads "$THREADS")
if [[ -z "$DIR" ]]; then
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/ssblup_scale.XXXXXX")
  trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- one simulation with 3 traits (1-trait runs use trait1 and the (1,1) variances)
if [[ ! -s "$DIR/sim.bed" || ! -s "$DIR/sim.pheno" ]]; then
  start=$(now)
  "$BIN" simulate-pedigree --animals "$ANIMALS" --founders $(( ANIMALS / 50 > 500 ? ANIMALS / 50 : 500 )) \
    --generations "$GENERATIONS" --sires "$SIRES" --genotyped "$GENOTYPED" --variants "$VARIANTS" \
    --chromosomes 30 --qtl 1000 --h2 "$H2" --herds $(( ANIMALS / 2000 > 50 ? ANIMALS / 2000 : 50 )) \
    --seed 7 "${THREADS_ARG[@]}" --out "$DIR/sim" > "$DIR/sim.out" 2>&1 || { cat "$DIR/sim.out"; exit 1; }
  echo "simulate-pedigree: $ANIMALS animals, $GENOTYPED genotyped x $VARIANTS variants, $GENERATIONS generations, $SIRES sires/generation: $(elapsed "$start") s"
else
  echo "reusing the simulation in $DIR"
fi
# 1-trait variance components: the (1,1) entries of the 3-trait file
awk '/^genetic/ { print; getline; print $1; next } /^residual/ { print; getline; print $1; exit }' \
  "$DIR/sim.vc" > "$DIR/sim1.vc"
echo "records: $(( $(wc -l < "$DIR/sim.pheno") - 1 )); .bed $(du -h "$DIR/sim.bed" | cut -f1); device $DEVICE"

for T in $TRAITS; do
  if [[ "$T" == 1 ]]; then TRAIT_LIST=trait1; VC="$DIR/sim1.vc"
  elif [[ "$T" == "$NTRAITS" ]]; then TRAIT_LIST=$(seq -s, -f "trait%g" 1 "$T"); VC="$DIR/sim.vc"
  else echo "TRAITS: $T is neither 1 nor the $NTRAITS simulated traits (H2=$H2)"; exit 2; fi
  for MODEL in $MODELS; do
    OUTP="$DIR/${MODEL}_t$T"
    BFILE=(--bfile "$DIR/sim")
    [[ "$MODEL" == pblup ]] && BFILE=()
    start=$(now)
    if ! "$BIN" ssblup --ped "$DIR/sim.ped" "${BFILE[@]}" --pheno "$DIR/sim.pheno" --traits "$TRAIT_LIST" \
        --class herd,lact --covar dim --vc "$VC" --model "$MODEL" --w 0.2 --tol "$TOL" --max-iter "$MAX_ITER" \
        --chr-set 30 --device "$DEVICE" "${THREADS_ARG[@]}" --out "$OUTP" > "$OUTP.out" 2>&1; then
      echo "== $MODEL, $T trait(s): FAILED"; tail -n 5 "$OUTP.out"; continue
    fi
    total=$(elapsed "$start")
    echo "== $MODEL, $T trait(s): $total s in all (process wall time)"
    grep -E "^Time (read|solve)" "$OUTP.log" | sed 's/^/   /'
    grep -E "^Set-up" "$OUTP.log" | sed 's/^/   /'
    grep -E "unknowns; PCG|^Per iteration" "$OUTP.log" | sed 's/^/   /'
  done
done
