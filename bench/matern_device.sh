#!/usr/bin/env bash
# Issue #21 on a GPU machine: the Matérn routes' speed on the thesis' Table 5.2 case and the
# cuda-labelled Matérn tests, in one short table. Builds nothing: give it a build folder made with
# the CUDA backend on (bench_matern and test_cuda_matern built in it).
#   bash bench/matern_device.sh BUILD_DIR [N=20000] [nu=0.1] [cpu_sample=200000]
# Logs land in $OUT when it is set, else in BUILD_DIR; the table goes to stdout.
set -u
B=${1:?usage: bash bench/matern_device.sh BUILD_DIR [N] [nu] [cpu_sample]}
N=${2:-20000}
NU=${3:-0.1}
SAMPLE=${4:-200000}
LOG=${OUT:-$B}
mkdir -p "$LOG"
BENCH="$B/bench/bench_matern"
TESTS="$B/tests/test_cuda_matern"
for f in "$BENCH" "$TESTS"; do
  [ -x "$f" ] || { echo "missing $f: build bench_matern and test_cuda_matern in $B first"; exit 2; }
done
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || true

echo "== bench_matern $N $NU $SAMPLE 1 (C_{1,$NU,1} on the pairwise distances of $N uniform points)"
timeout 900 "$BENCH" "$N" "$NU" "$SAMPLE" 1 >"$LOG/bench_matern.log" 2>&1
rc_bench=$?
# The cpu lines (per core, on the sample), then every cuda line: route, time, evaluations/s, max
# relative difference from the cpu, and the targets met or not.
grep -E "^Matern|^cpu|^  (quadrature|trapezoid|Boost|host-device|target|projected)|^cuda" "$LOG/bench_matern.log"
[ $rc_bench -eq 0 ] || { echo "bench_matern exited $rc_bench:"; tail -20 "$LOG/bench_matern.log"; }

echo "== cuda Matérn tests (accuracy against Arb on the 51 x 51 grid; against the cpu and reference)"
timeout 600 ctest --test-dir "$B" -L cuda -R CudaMatern --output-on-failure --timeout 300 >"$LOG/ctest_matern.log" 2>&1
rc_tests=$?
grep -E "Test +#.*CudaMatern" "$LOG/ctest_matern.log" | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: //'
grep -E "tests passed|tests failed" "$LOG/ctest_matern.log"
# The grid errors each route printed (worst relative error against Arb, and where).
timeout 300 "$TESTS" --gtest_filter='CudaMatern.*MeetsTheTargets*' 2>&1 | grep -E "on the 51x51 log grid|^  (C |dC|d2C)"
[ $rc_tests -eq 0 ] || grep -B3 -A20 -E "Failure|FAILED" "$LOG/ctest_matern.log" | head -60
exit $(( rc_bench != 0 || rc_tests != 0 ))
