#!/usr/bin/env bash
# Steps of a session on the GPU machine (the `device` tool's `run`, carrying .devdeps made here by
# ../shared/device/fetch-debs.sh plus `apt-get download` of libscalapack-openmpi2.2,
# libscalapack-openmpi-dev, libflint-arb-dev, libflint-arb2, libflint-dev, libflint17, libmpfr-dev,
# libgmp-dev, libgmpxx4ldbl into .devdeps), run in the order given:
#   bash tools/gpu_session.sh build cuda-tests krr-ranks
# build       configure and build build-gpu (sm_90a + sm_80, no Python package)
# build-bin   the same, the panoramix binary only
# cuda-tests  ctest -L cuda
# krr-ranks   bench_krr_associate over ranks: KRR_JOBS="N:P ..." (default "65536:1 65536:2"),
#             KRR_REPS (3); PMX_TILE_TRACE=1 in the environment adds the chain's pieces
# ss-national ssblup sssnpblup, 6 traits, on one GPU at the national size of issue #25 (SS_ANIMALS
#             26,500,000, SS_GENOTYPED 2,600,000, 50,000 variants), SS_ITER (10) fixed iterations,
#             SS_TOL (1e-12); peak GPU and host memory sampled every 2 s
# ss-routes   ssblup at 5,000,000 / 500,000 x 50,000 (SS5_ANIMALS, SS5_GENOTYPED) with PCG's vectors on
#             the GPU (the device route) and on the host (PMX_PCG_GPU=0, SS5_HOST_ITER fixed
#             iterations, 150), TRAITS (default "1 3"), MODELS (default "sssnpblup pblup"),
#             SS5_ROUTES (default "1 0": PMX_PCG_GPU values)
# krr-cli     mpirun -np P panoramix krr --device cuda on simulated data (KRR_CLI_N, KRR_CLI_M,
#             KRR_CLI_GAMMA, KRR_CLI_RANKS)
set -u
cd "$(dirname "$(readlink -f "$0")")/.."
[ -d .devdeps ] && bash .devdeps/unpack-debs.sh > /dev/null
export CMAKE_PREFIX_PATH=/opt/devdeps/usr
export LD_LIBRARY_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=build-gpu
mpi() { mpirun --oversubscribe --bind-to none -np "$@"; }
for step in "$@"; do
  echo "=== $step ($(date +%T))"
  case $step in
    build|build-bin)
      cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90a;80" -DPMX_PYTHON=OFF \
        > $B.configure.log 2>&1 || { tail -30 $B.configure.log; exit 1; }
      cmake --build $B -j "$(nproc)" $([ $step = build-bin ] && echo --target panoramix) -- -k 0 2>&1 | grep -E "error|warning|FAILED" | head -40
      [ -x $B/panoramix ] || exit 1 ;;
    cuda-tests)
      ctest --test-dir $B -L cuda -j 4 --output-on-failure 2>&1 | grep -vE "^ +Start|^Test +#.*Passed" | tail -40 ;;
    krr-ranks)
      for job in ${KRR_JOBS:-65536:1 65536:2}; do
        n=${job%:*}; p=${job#*:}
        echo "--- n=$n on $p GPU(s)"
        mpi "$p" $B/bench/bench_krr_associate --n "$n" --traits 10 --refinement classical --tile 2048 --contiguous \
          --gamma 0.25 --skip-fp32 --tile-accuracy 3e-4 --reps "${KRR_REPS:-3}" $([ "$p" != 1 ] && echo --skip-fp64) 2>&1 |
          grep -v "step piece" | tail -45
      done ;;
    krr-cli)
      d=/tmp/krr_cli; mkdir -p $d
      $B/panoramix simulate --samples "${KRR_CLI_N:-10000}" --variants "${KRR_CLI_M:-10000}" --traits 2 --out $d/sim \
        > /dev/null || exit 1
      for p in ${KRR_CLI_RANKS:-1 2}; do
        /usr/bin/time -f "np $p: %e s wall" mpirun --bind-to none -np "$p" $B/panoramix krr --bfile $d/sim \
          --pheno $d/sim.pheno --all-pheno --gamma "${KRR_CLI_GAMMA:-4e-5}" --alpha 1 --device cuda \
          --precision adaptive --kernel-on host --out $d/np$p 2>&1 | tail -4
        grep -iE "stage|seconds| s$" $d/np$p.log | tail -20
      done ;;
    ss-national)
      mem=${OUT:-/tmp}/memory.txt
      (while true; do echo "$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0)" \
        "$(free -m | awk '/^Mem/ { print $3 }')"; sleep 2; done > "$mem") &
      sampler=$!
      CUDA_VISIBLE_DEVICES=0 MAX_ITER=${SS_ITER:-10} TOL=${SS_TOL:-1e-12} TRAITS=6 H2=0.3,0.4,0.2,0.25,0.35,0.1 \
        MODELS=sssnpblup bash bench/ssblup_scale.sh $B/panoramix "${SS_ANIMALS:-26500000}" \
        "${SS_GENOTYPED:-2600000}" 50000 "/tmp/ss_${SS_ANIMALS:-26500000}_${SS_GENOTYPED:-2600000}" cuda
      kill $sampler
      awk '$1 > g { g = $1 } $2 > h { h = $2 } END { print "peak GPU memory used " g " MiB, host " h " MiB" }' "$mem" ;;
    ss-routes)
      d=/tmp/ss5_${SS5_ANIMALS:-5000000}_${SS5_GENOTYPED:-500000}
      for route in ${SS5_ROUTES:-1 0}; do
        echo "--- PMX_PCG_GPU=$route"
        iters=5000; [ $route = 0 ] && iters=${SS5_HOST_ITER:-150}
        PMX_PCG_GPU=$route MAX_ITER=$iters TRAITS="${TRAITS:-1 3}" MODELS="${MODELS:-sssnpblup pblup}" \
          bash bench/ssblup_scale.sh $B/panoramix "${SS5_ANIMALS:-5000000}" "${SS5_GENOTYPED:-500000}" 50000 "$d" cuda
        grep -h "PCG on the GPU\|PCG vectors" "$d"/*.log | sort | uniq -c
      done ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
