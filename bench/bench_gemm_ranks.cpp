// Genotype × dense products split by samples over the ranks of an MPI run (one GPU per rank):
// Y = Z·Λ (each rank its rows, no communication) and W = Zᵀ·Λ̃ (each rank's k × l product, then
// the rank-ordered sum: NCCL for device memory). Strong scaling: run with mpirun -np 1, 2, 4 on
// the same n and compare the medians.
//   mpirun -np P bench_gemm_ranks [--n 10000000] [--k 50000] [--l 10] [--reps 5] [--device cuda|cpu]
// Each rank makes its own samples' 2-bit calls (random, ~1 % missing) in host memory; operands,
// Λ, Λ̃, Y and W are in the executor's memory (device memory on cuda), so the times are the
// products and the sum, not the bus. Prints per-rank memory and the median over repetitions of
// the slowest rank's time (barriers around each product). Then the sum over ranks alone
// (detail::sum_over_ranks: an NCCL all-gather and the rank-ordered addition) on 1, 64 and 512 MiB of
// doubles per rank, with the all-gather's bus bandwidth in NCCL's convention ((P−1)/P · P·bytes / t).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/device_collectives.hpp"
#include "panoramix/communicator.hpp"
#include "tiled_random_calls.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/genotype_gemm.hpp"

using namespace pmx;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 10'000'000, k = 50'000, l = 10;
  int reps = 5;
  std::string device = "cuda";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a];
    if (key == "--n") n = std::stoll(argv[a + 1]);
    else if (key == "--k") k = std::stoll(argv[a + 1]);
    else if (key == "--l") l = std::stoll(argv[a + 1]);
    else if (key == "--reps") reps = std::stoi(argv[a + 1]);
    else if (key == "--device") device = argv[a + 1];
  }
  const communicator& comm = communicator::world();
  executor exec(parse_backend(device), 0);
  exec.set_communicator(comm);
  const sample_range mine = samples_of_rank(n, comm.rank(), comm.size());
  const int64_t row_bytes = (mine.count + 3) / 4;

  // Calls: tiled_random_calls.hpp, one byte in 25 with a missing call.
  double t0 = now();
  const auto calls = bench::tiled_random_calls(k, row_bytes, 0, 1234 + comm.rank(), 25);
  const double t_make = now() - t0;

  std::vector<double> p(k), s(k);
  std::mt19937_64 rng(77);  // the same frequencies and Λ on every rank
  std::uniform_real_distribution<double> up(0.05, 0.95), u(-1, 1);
  for (int64_t j = 0; j < k; ++j) p[j] = up(rng), s[j] = 1.0 / std::sqrt(2 * p[j] * (1 - p[j]));
  std::vector<double> lambda(static_cast<size_t>(k * l)), lambda_t(static_cast<size_t>(std::max<int64_t>(mine.count, 1) * l));
  for (auto& x : lambda) x = u(rng);
  std::mt19937_64 rng_t(99 + comm.rank());
  for (auto& x : lambda_t) x = u(rng_t);

  comm.barrier();
  t0 = now();
  const variant_major_view v{calls.get(), mine.count, k, row_bytes};
  gemm_operand op(exec, v, gemm_accuracy::componentwise, operand_samples::this_rank);
  executor_array<double> dl(exec, lambda.size()), dlt(exec, lambda_t.size()),
      dy(exec, static_cast<size_t>(std::max<int64_t>(mine.count, 1) * l)), dw(exec, static_cast<size_t>(k * l));
  dl.copy_from_host(lambda.data(), 0, lambda.size());
  dlt.copy_from_host(lambda_t.data(), 0, lambda_t.size());
  comm.barrier();
  const double t_upload = now() - t0;
  const gemm_centring c{p, s};

  std::vector<double> ty, tw;
  for (int r = 0; r < reps + 1; ++r) {  // the first round warms up (NCCL set-up, kernels, scratch)
    comm.barrier();
    t0 = now();
    gemm(op, c, l, dl.data(), l, 0.0, dy.data(), l);
    exec.start_device();  // (gemm returns when done: the op synchronises its stream)
    comm.barrier();
    const double a = now() - t0;
    t0 = now();
    gemm_transposed(op, c, l, dlt.data(), l, 0.0, dw.data(), l);
    comm.barrier();
    const double b = now() - t0;
    if (r > 0) ty.push_back(a), tw.push_back(b);
  }
  std::vector<double> w(static_cast<size_t>(k * l));
  dw.copy_to_host(w.data(), 0, w.size());
  double checksum = 0;
  for (double x : w) checksum += x;

  // The sum over ranks alone, per size.
  std::vector<std::pair<int64_t, double>> sums;
  for (int64_t mib : {1, 64, 512}) {
    const int64_t count = (mib << 20) / 8;
    executor_array<double> a(exec, static_cast<size_t>(count));
    std::vector<double> host(static_cast<size_t>(count), 1.0 + comm.rank());
    a.copy_from_host(host.data(), 0, host.size());
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {
      comm.barrier();
      t0 = now();
      detail::sum_over_ranks(exec, a.data(), count, 1, 0.0, a.data(), 1);
      comm.barrier();
      if (r > 0) t.push_back(now() - t0);
    }
    sums.emplace_back(mib, median(t));
  }

  const double gb_rank = double(row_bytes) * double(k) / 1e9;
  std::vector<double> mem(comm.size());
  comm.all_gather(&gb_rank, sizeof gb_rank, mem.data());
  if (comm.rank() == 0) {
    std::printf("ranks %d (%s), n %lld samples x k %lld variants, l %lld; calls made in %.1f s, uploaded in %.1f s\n",
                comm.size(), backend_name(exec.kind()).c_str(), (long long)n, (long long)k, (long long)l, t_make,
                t_upload);
    for (int r = 0; r < comm.size(); ++r)
      std::printf("  rank %d: %lld samples, 2-bit calls %.2f GB\n", r,
                  (long long)samples_of_rank(n, r, comm.size()).count, mem[r]);
    const double total_gb = double((n + 3) / 4) * double(k) / 1e9;
    const double my = median(ty), mw = median(tw);
    std::printf("Z*L   median %.2f ms  (%.0f GB/s of 2-bit calls over all ranks)\n", 1e3 * my, total_gb / my);
    std::printf("Zt*L  median %.2f ms  (%.0f GB/s; includes the sum of the %lld x %lld results over ranks)\n", 1e3 * mw,
                total_gb / mw, (long long)k, (long long)l);
    std::printf("W checksum %.17g (data differ per rank count: each rank makes its own calls)\n", checksum);
    const int P = comm.size();
    for (const auto& [mib, t] : sums)
      std::printf("sum over ranks of %lld MiB per rank: median %.3f ms, all-gather bus bandwidth %.1f GB/s\n",
                  (long long)mib, 1e3 * t, P > 1 ? double(P - 1) * double(mib << 20) / t / 1e9 : 0.0);
  }
  return 0;
}
