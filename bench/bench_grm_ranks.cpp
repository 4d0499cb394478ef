// The GRM's multiply stage split by variants over the ranks of an MPI run (one GPU per rank), as
// `mpirun -np P panoramix grm` splits it: each rank adds its own contiguous variant range into
// the n × n pair sums (sample_sums). Strong scaling: run with mpirun -np 1, 2, 4 on the same
// n × m and compare the slowest rank's time.
//   mpirun -np P bench_grm_ranks [--n 100000] [--m 1000000] [--method vanraden|standardized]
//                                [--reps 1] [--device cuda|cpu]
// vanraden: S = Σ x_i x_j on the binary tensor cores, kept on the device; then (unless --flush 0)
// flush(): with several ranks the sums mirrored on the devices, added to the owners of their rows
// through NCCL and each rank's rows downloaded (rows_over_ranks, `grm`'s route); alone, the lower
// triangle downloaded. With --flush 0 no host S is made (S_on_device_only). standardized: C = Σ z_i z_j on the int8 tensor cores (affine tables, no
// missing calls), kept on the device until a flush this bench never makes (its host C is
// reserved, not touched). The calls: a 64 MiB random pattern (codes 0, 2, 3: no missing call)
// tiled over the rows at shifting offsets, made in host memory by each rank for its own range;
// their upload (PCIe, overlapped with the products) is part of the stage, as in `grm`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/device_collectives.hpp"
#include "panoramix/communicator.hpp"
#include "tiled_random_calls.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/sample_sums.hpp"

using namespace pmx;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 100'000, m = 1'000'000, block = 65'536;
  int reps = 1, flush = 1;
  std::string device = "cuda", method = "vanraden";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a];
    if (key == "--n") n = std::stoll(argv[a + 1]);
    else if (key == "--m") m = std::stoll(argv[a + 1]);
    else if (key == "--block") block = std::stoll(argv[a + 1]);
    else if (key == "--reps") reps = std::stoi(argv[a + 1]);
    else if (key == "--device") device = argv[a + 1];
    else if (key == "--method") method = argv[a + 1];
    else if (key == "--flush") flush = std::stoi(argv[a + 1]);
  }
  const bool vanraden = method == "vanraden";
  const communicator& comm = communicator::world();
  // Ranks on one host divide its cores (as `grm` does): each stages its own calls for its GPU.
  executor exec(parse_backend(device), std::max(1, static_cast<int>(std::thread::hardware_concurrency()) /
                                                        std::max(1, communicator::world().local_size())));
  exec.set_communicator(comm);
  const int64_t v0 = m * comm.rank() / comm.size(), v1 = m * (comm.rank() + 1) / comm.size(), k = v1 - v0;
  const int64_t row_bytes = (n + 3) / 4;

  double t0 = now();
  const auto calls = bench::tiled_random_calls(k, row_bytes, v0, 1234 + comm.rank(), 0);
  const double t_make = now() - t0;

  // Standardised tables of made-up frequencies (affine: the int8 route takes them).
  std::vector<code_table> tables(static_cast<size_t>(std::max<int64_t>(k, 1)));
  std::mt19937_64 rng(77 + comm.rank());
  std::uniform_real_distribution<double> up(0.05, 0.95);
  for (auto& z : tables) {
    const double p = up(rng), q = 2 * p, s = 1 / std::sqrt(2 * p * (1 - p));
    z = {(2 - q) * s, 0.0, (1 - q) * s, -q * s};
  }
  matrix_buffer<double> C;  // reserved, never touched on cuda (no flush)
  matrix_buffer<int32_t> S;  // the host S of the other backends
  if (!vanraden) C = matrix_buffer<double>(static_cast<size_t>(n * n));
  const bool on_device = exec.kind() == backend::cuda;
  const sample_range rows = rows_of_rank(n, comm.rank(), comm.size());
  const bool host_S = vanraden && (!on_device || flush);
  if (host_S) S = matrix_buffer<int32_t>(static_cast<size_t>(std::max<int64_t>((comm.distributed() ? rows.count : n) * n, 1)));
  comm.barrier();
  t0 = now();
  sample_sums sums(exec, n,
                   vanraden ? (!host_S ? sample_sums_outputs{.S_on_device_only = true}
                                       : sample_sums_outputs{.S = S.data(), .ld = n, .uninitialised = true,
                                                             .rows_over_ranks = true})
                            : sample_sums_outputs{.C = C.data(), .ld = n, .uninitialised = !on_device});
  comm.barrier();
  const double t_open = now() - t0;

  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    comm.barrier();
    t0 = now();
    for (int64_t first = 0; first < k; first += block) {
      const int64_t count = std::min(block, k - first);
      const variant_major_view g{calls.get() + first * row_bytes, n, count, row_bytes};
      sums.add(g, vanraden ? std::span<const code_table>{} : std::span<const code_table>(tables).subspan(first, count),
               {}, false);
    }
    exec.synchronize();  // sample_sums::add returns once a block is copied, not multiplied
    comm.barrier();
    times.push_back(now() - t0);
  }
  const int64_t integer = sums.integer_route_variants();
  double t_flush = 0;
  if (host_S) {
    comm.barrier();
    t0 = now();
    sums.flush();
    comm.barrier();
    t_flush = now() - t0;
  }

  const double gb_rank = double(row_bytes) * double(k) / 1e9;
  std::vector<double> mem(static_cast<size_t>(comm.size()));
  comm.all_gather(&gb_rank, sizeof gb_rank, mem.data());
  // The sum to the rows' owners alone (NCCL between GPUs): 4 GB of int32 per rank.
  double t_owners = 0;
  const int64_t owner_values = int64_t{1} << 30;
  if (comm.distributed()) {
    executor_array<int32_t> buf(exec, static_cast<size_t>(owner_values));
    std::vector<int64_t> first(static_cast<size_t>(comm.size() + 1));
    for (int o = 0; o <= comm.size(); ++o) first[static_cast<size_t>(o)] = owner_values * o / comm.size();
    std::vector<double> t;
    for (int r = 0; r < 4; ++r) {  // the first warms up
      comm.barrier();
      t0 = now();
      detail::sum_to_owners(exec, buf.data(), first.data());
      comm.barrier();
      if (r > 0) t.push_back(now() - t0);
    }
    t_owners = median(t);
  }
  if (comm.rank() == 0) {
    std::printf("ranks %d (%s), %s: n %lld samples x m %lld variants; calls made in %.1f s, sums opened in %.1f s (%s)\n",
                comm.size(), backend_name(exec.kind()).c_str(), method.c_str(), (long long)n, (long long)m, t_make,
                t_open, sums.residence());
    for (int r = 0; r < comm.size(); ++r)
      std::printf("  rank %d: variants [%lld, %lld), 2-bit calls %.2f GB\n", r, (long long)(m * r / comm.size()),
                  (long long)(m * (r + 1) / comm.size()), mem[static_cast<size_t>(r)]);
    const double t = median(times);
    const double pairs = double(n) * double(n + 1) / 2;
    std::printf("multiply stage median %.2f s (slowest rank; %.1f T pair-variant products/s over all ranks)%s\n", t,
                pairs * double(m) / t / 1e12,
                vanraden ? "" : (" int8 route: " + std::to_string(integer) + " of rank 0's variants").c_str());
    if (host_S)
      std::printf("flush %.2f s (%s; %.1f GB of S rows on rank 0's host)\n", t_flush,
                  comm.distributed() ? "mirror, sum to the rows' owners, download own rows" : "download the lower triangle",
                  double(comm.distributed() ? rows.count : n) * double(n) * 4 / 1e9);
    if (comm.distributed())
      std::printf("sum to owners alone, 4.3 GB of int32 per rank: median %.3f s (each rank receives %.1f GB/s)\n",
                  t_owners, double(owner_values) * 4 * double(comm.size() - 1) / comm.size() / t_owners / 1e9);
  }
  return 0;
}
