// The dense Cholesky solve over the ranks of an MPI run on CPUs (ScaLAPACK:
// distributed_cholesky_solve), KRR Associate's reference route over ranks. Strong scaling: run
// with mpirun -np 1, 2, 4 on the same n and compare.
//   mpirun -np P bench_cholesky_ranks [--n 16384] [--traits 10] [--block 0] [--reps 3]
// A = K + I for the Gaussian kernel K_ij = exp(−‖x_i − x_j‖² / 2d) of n random points in d = 16
// dimensions (symmetric positive definite, well conditioned); each rank builds only its
// rows_of_rank rows. Prints the median over repetitions of the solve (redistribution, pdpotrf,
// pdpotrs, the gather of X), its rate in n³/3 flop per second, and the residual ‖AX − B‖∞ / ‖B‖∞
// of rank 0's X checked against its own rows of A (all ranks' rows by a sum).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "panoramix/communicator.hpp"
#include "panoramix/ops/distributed_cholesky.hpp"

using namespace pmx;

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main(int argc, char** argv) {
  int64_t n = 16384, traits = 10, block = 0;
  int reps = 3;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a];
    if (key == "--n") n = std::stoll(argv[a + 1]);
    else if (key == "--traits") traits = std::stoll(argv[a + 1]);
    else if (key == "--block") block = std::stoll(argv[a + 1]);
    else if (key == "--reps") reps = std::stoi(argv[a + 1]);
  }
  const communicator& comm = communicator::world();
  // Ranks on one host divide its cores (OpenBLAS under ScaLAPACK uses its own threads).
  executor exec(backend::cpu, std::max(1, static_cast<int>(std::thread::hardware_concurrency()) /
                                              std::max(1, comm.local_size())));
  exec.set_communicator(comm);
  constexpr int d = 16;
  std::vector<double> x(static_cast<size_t>(n * d)), B(static_cast<size_t>(n * traits));
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  for (auto& v : x) v = z(rng);
  for (auto& v : B) v = z(rng);
  const sample_range mine = rows_of_rank(n, comm.rank(), comm.size());
  auto build = [&](std::vector<double>& rows) {
    rows.assign(static_cast<size_t>(std::max<int64_t>(mine.count, 1) * n), 0.0);
#pragma omp parallel for schedule(static) num_threads(exec.threads())
    for (int64_t i = 0; i < mine.count; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < d; ++k) {
          const double e = x[static_cast<size_t>((mine.first + i) * d + k)] - x[static_cast<size_t>(j * d + k)];
          s += e * e;
        }
        rows[static_cast<size_t>(i * n + j)] = std::exp(-s / (2.0 * d)) + (mine.first + i == j ? 1.0 : 0.0);
      }
  };
  std::vector<double> rows, X, times;
  for (int r = 0; r < reps; ++r) {
    build(rows);
    X = B;
    comm.barrier();
    const double t0 = now();
    distributed_cholesky_solve(exec, n, rows.data(), traits, X.data(), block);
    comm.barrier();
    times.push_back(now() - t0);
  }
  // Residual: each rank its rows of A X − B, the largest over ranks.
  build(rows);
  double worst = 0, bmax = 0;
  for (int64_t i = 0; i < mine.count; ++i)
    for (int64_t c = 0; c < traits; ++c) {
      double s = 0;
      for (int64_t j = 0; j < n; ++j) s += rows[static_cast<size_t>(i * n + j)] * X[static_cast<size_t>(c * n + j)];
      worst = std::max(worst, std::fabs(s - B[static_cast<size_t>(c * n + mine.first + i)]));
    }
  for (double v : B) bmax = std::max(bmax, std::fabs(v));
  comm.max(&worst, 1);
  std::sort(times.begin(), times.end());
  if (comm.rank() == 0)
    std::printf("ranks %d x %d threads, n %lld, traits %lld: solve median %.3f s (%.1f GFLOP/s of n^3/3), "
                "residual %.2e relative, rows per rank %.2f GB\n",
                comm.size(), exec.threads(), (long long)n, (long long)traits, times[times.size() / 2],
                double(n) * double(n) * double(n) / 3 / times[times.size() / 2] / 1e9, worst / bmax,
                double(mine.count) * double(n) * 8 / 1e9);
  return 0;
}
