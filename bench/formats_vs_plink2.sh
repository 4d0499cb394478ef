#!/usr/bin/env bash
# Issue #22 speed: each input format to a .bed fileset, `panoramix convert` against `plink2 ...
# --make-bed` on the same file and the same threads, median of REPS runs each, side by side in one
# run; plus VCF text parsing in genotypes per second on one thread. The inputs are written by plink2
# from one simulated fileset (the .bed outputs are compared byte for byte as a check).
#   bash bench/formats_vs_plink2.sh [BIN [SAMPLES VARIANTS [THREADS [REPS [DIR]]]]]
set -u
P=$(readlink -f "${1:-build/panoramix}"); n=${2:-2000}; m=${3:-50000}; t=${4:-2}; reps=${5:-3}; D=${6:-/tmp/pmx_formats}
mkdir -p "$D"; cd "$D" || exit 1
command -v plink2 >/dev/null || { echo "plink2 not found"; exit 1; }
"$P" simulate --samples "$n" --variants "$m" --missing 0.01 --seed 3 --out sim >/dev/null 2>&1 || { echo "simulate failed"; exit 1; }
plink2 --bfile sim --export vcf bgz --out sim --threads "$t" >/dev/null
plink2 --bfile sim --export bcf --out sim --threads "$t" >/dev/null
plink2 --bfile sim --export bgen-1.2 bits=8 --out sim --threads "$t" >/dev/null
plink2 --bfile sim --make-pgen --out sim --threads "$t" >/dev/null
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
secs() {
  local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; e=$(date +%s%N)
  awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'
}
printf '%-12s %10s %10s %8s %s\n' format panoramix plink2 ratio "(seconds, median of $reps, $t threads, $n x $m)"
for f in vcf bcf bgen pgen; do
  case $f in
    vcf) ours=(convert --vcf sim.vcf.gz); theirs=(--vcf sim.vcf.gz) ;;
    bcf) ours=(convert --bcf sim.bcf); theirs=(--bcf sim.bcf) ;;
    bgen) ours=(convert --bgen sim.bgen --sample sim.sample); theirs=(--bgen sim.bgen ref-first --sample sim.sample) ;;
    pgen) ours=(convert --pfile sim); theirs=(--pfile sim) ;;
  esac
  if ! "$P" "${ours[@]}" --threads "$t" --out "ours_$f" >/dev/null 2>&1; then
    printf '%-12s %10s\n' "$f" "refused"; continue
  fi
  a=$(for r in $(seq "$reps"); do secs "$P" "${ours[@]}" --threads "$t" --out "ours_$f"; done | median)
  b=$(for r in $(seq "$reps"); do secs plink2 "${theirs[@]}" --make-bed --threads "$t" --out "plink2_$f"; done | median)
  same=$(cmp -s "ours_$f.bed" "plink2_$f.bed" && echo "same .bed" || echo ".bed DIFFERS")
  printf '%-12s %10s %10s %7.2fx %s\n' "$f" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')" "$same"
done
v=$(for r in $(seq "$reps"); do secs "$P" convert --vcf sim.vcf.gz --threads 1 --out ours_vcf1; done | median)
printf 'VCF text, 1 thread (parse + inflate): %s s = %.1f M genotypes/s\n' "$v" "$(awk -v v="$v" -v g="$((n * m))" 'BEGIN { print g / v / 1e6 }')"
