#!/usr/bin/env bash
# Build, test and benchmark the CUDA backend on a GPU machine, in one go (one device call):
#   bash bench/cuda_device_check.sh [build-dir] [bench args...]
# Logs land in $OUT when it is set (the device tool's output folder), else in the build folder.
set -u
B=${1:-build-gpu}
shift || true
LOG=${OUT:-$B}
mkdir -p "$B" "$LOG"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
t0=$(date +%s)
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90a;80" -DPMX_TESTS=ON \
  >"$LOG/configure.log" 2>&1 || { tail -40 "$LOG/configure.log"; exit 1; }
cmake --build "$B" -j16 >"$LOG/build.log" 2>&1 || { grep -A12 -E "error|Error" "$LOG/build.log" | head -120; exit 1; }
echo "== built in $(( $(date +%s) - t0 )) s"

# The benchmark: the CMake target when bench/ is wired in, else a direct nvcc build.
BENCH=$(find "$B" -name bench_cuda_crossprod -type f -perm -u+x | head -1)
if [ -z "$BENCH" ]; then
  BENCH="$B/bench_cuda_crossprod"
  nvcc -std=c++17 -O3 -Iinclude -Isrc -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fopenmp \
    bench/bench_cuda_crossprod.cu "$B/libpanoramix.a" -lcublas -lopenblas -o "$BENCH" >"$LOG/bench_build.log" 2>&1 ||
    { tail -30 "$LOG/bench_build.log"; exit 1; }
fi

echo "== SASS of the product kernels (sm_90a): tensor-core instructions"
cuobjdump -arch sm_90a --dump-sass "$B/CMakeFiles/panoramix_lib.dir/src/ops/crossprod/cuda_product.cu.o" 2>/dev/null |
  grep -oE "([A-Z]*GMMA|BMMA|IMMA|HMMA|LDSM|LDGSTS)[.A-Z0-9_]*" | sort | uniq -c

# Tests: with the default product kernel (wgmma on an H100/H200), then with mma.sync forced.
for mma in default sync; do
  echo "== tests (label cuda), product kernel: $mma"
  t0=$(date +%s)
  if [ $mma = default ]; then unset PMX_CUDA_BINARY_MMA; else export PMX_CUDA_BINARY_MMA=$mma; fi
  # The cuda label, plus the C API's cuda handle test (it lives in test_capi.cpp, label cpu).
  timeout 240 ctest --test-dir "$B" -L cuda --output-on-failure --timeout 120 >"$LOG/ctest_$mma.log" 2>&1
  rc=$?
  timeout 120 ctest --test-dir "$B" -R CapiCuda --output-on-failure --timeout 100 >>"$LOG/ctest_$mma.log" 2>&1 || rc=1
  grep -E "Test +#|tests passed|tests failed" "$LOG/ctest_$mma.log" | tail -12
  if [ $rc -ne 0 ]; then grep -B3 -A25 -E "Failure|FAILED|error" "$LOG/ctest_$mma.log" | head -80; fi
  echo "== tests took $(( $(date +%s) - t0 )) s (rc $rc)"
done
unset PMX_CUDA_BINARY_MMA

echo "== compute-sanitizer memcheck (subset)"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/test_cuda_ops" \
  --gtest_filter='CudaCrossprod.SubsetsOfOutputsAndLeadingDimension:CudaCrossprod.TinyMemoryBudgetForcesTiling:CudaTableProducts.TinyMemoryBudgetForcesTiling:CudaSampleSums.*' \
  >"$LOG/memcheck.log" 2>&1
echo "memcheck rc $? : $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$LOG/memcheck.log" | tr '\n' ' ')"
PMX_CUDA_BINARY_MMA=sync timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/test_cuda_ops" \
  --gtest_filter='CudaCrossprod.SubsetsOfOutputsAndLeadingDimension:CudaCrossprod.TinyMemoryBudgetForcesTiling' \
  >"$LOG/memcheck_sync.log" 2>&1
echo "memcheck (mma.sync) rc $? : $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$LOG/memcheck_sync.log" | tr '\n' ' ')"

echo "== benchmark"
timeout 240 "$BENCH" "$@" 2>&1 | tee "$LOG/bench.log"

# The command line end to end: panoramix grm --device cuda against --device cpu.
echo "== panoramix grm, 4000 samples x 100000 variants, 1% missing"
P="$B/panoramix"
D="$B/grm_sim"
mkdir -p "$D"
"$P" simulate --samples 4000 --variants 100000 --missing 0.01 --seed 3 --out "$D/sim" >/dev/null 2>&1
for method in standardized vanraden; do
  for dev in cuda cpu; do
    t0=$(date +%s%N)
    "$P" grm --bfile "$D/sim" --method $method --device $dev --out "$D/$method.$dev" >/dev/null 2>&1 || echo "grm $method $dev failed"
    echo "grm --method $method --device $dev: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  done
  # Data larger than the device budget: 64 MiB forces the per-block, tiled path.
  t0=$(date +%s%N)
  PMX_CUDA_MEMORY_MB=64 "$P" grm --bfile "$D/sim" --method $method --device cuda --out "$D/$method.small" >/dev/null 2>&1 ||
    echo "grm $method cuda (64 MiB budget) failed"
  echo "grm --method $method --device cuda, PMX_CUDA_MEMORY_MB=64: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  python3 -c "
import numpy as np
a = np.fromfile('$D/$method.cpu.rel.bin'); b = np.fromfile('$D/$method.cuda.rel.bin'); c = np.fromfile('$D/$method.small.rel.bin')
print('  $method: n^2 =', a.size, ' max |cuda - cpu| =', np.abs(a - b).max(), ' max |cuda(64 MiB) - cpu| =', np.abs(a - c).max(), ' max |G| =', np.abs(a).max())"
done

# Issue #4 end to end (.bed -> .grm.bin) at the thesis' size, unless PMX_SKIP_E2E is set.
if [ -z "${PMX_SKIP_E2E:-}" ]; then bash bench/cuda_grm_end_to_end.sh "$P"; fi
