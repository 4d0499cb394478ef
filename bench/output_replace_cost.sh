#!/usr/bin/env bash
# What replacing an existing output costs on a file system, apart from writing it: 1 GiB written
# by dd to a temporary name and renamed over the target (as panoramix's outputs are), three rounds
# replacing the previous round's file, then three rounds to a new name; `sync` before each round.
# On a file system mounted with `discard`, freeing the replaced file's blocks trims them inside
# the rename.   bash bench/output_replace_cost.sh [DIR]
set -u
D=${1:-/tmp/pmx_replace_cost}; mkdir -p "$D"; cd "$D" || exit 1
mount | awk -v d="$(df --output=target . | tail -1)" '$3 == d {print "file system:", $1, "on", $3, $5, $6}'
for mode in replace fresh; do
  for r in 1 2 3; do
    [ $mode = fresh ] && rm -f f
    sync
    s=$(date +%s%N); dd if=/dev/zero of=f.tmp bs=16M count=64 status=none; m=$(date +%s%N); mv f.tmp f; e=$(date +%s%N)
    echo "$mode round $r: write 1 GiB $(( (m - s) / 1000000 )) ms, rename $(( (e - m) / 1000000 )) ms"
  done
done
rm -f f
