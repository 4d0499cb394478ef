#!/usr/bin/env bash
# Two builds of panoramix side by side on the same data (a refactor's "no speed change" check):
#   bash bench/compare_builds.sh OLD_BINARY NEW_BINARY WORKDIR
# Simulates 4,000 x 100,000 (1 % missing) into WORKDIR unless there, runs each command three times
# per binary (wall time of the whole command, 60 s limit) and prints the sorted times.
set -u
old=$1 new=$2 D=$3
mkdir -p "$D"
[ -f "$D/s4k.bed" ] || "$new" simulate --samples 4000 --variants 100000 --missing 0.01 --out "$D/s4k" >/dev/null
[ -f "$D/s4k.pheno" ] || awk 'BEGIN{srand(3)}{print $1, $2, rand() + rand()}' "$D/s4k.fam" > "$D/s4k.pheno"
t() {
  local s e rc
  s=$(date +%s.%N); timeout 60 "$@" >/dev/null 2>&1; rc=$?; e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" -v rc=$rc 'BEGIN{printf "%.3f%s\n", b - a, rc ? " rc=" rc : ""}'
}
run() {
  local name=$1 line=$1 v bin; shift
  for v in old new; do
    bin=$old; [ $v = new ] && bin=$new
    line="$line | $v: $(for r in 1 2 3; do t "$bin" "$@" --out "$D/o_$v"; done | sort -n | tr '\n' ' ')"
  done
  echo "$line"
  rm -f "$D"/o_old.* "$D"/o_new.*
}
run "grm cuda standardized" grm --bfile "$D/s4k" --device cuda
run "grm cuda vanraden" grm --bfile "$D/s4k" --device cuda --method vanraden
run "grm cpu" grm --bfile "$D/s4k" --device cpu
run "pca --pcs 10 cuda" pca --bfile "$D/s4k" --pcs 10 --device cuda
run "gblup --h2 0.5 --pcs 10 --no-pev cuda" gblup --bfile "$D/s4k" --pheno "$D/s4k.pheno" --h2 0.5 --pcs 10 --no-pev --device cuda
