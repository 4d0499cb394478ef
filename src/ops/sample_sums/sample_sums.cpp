// sample_sums: validation and dispatch. Every backend adds block by block into the host outputs
// (kernels::*::sample_sums_add); cuda keeps S, N and a on the device instead when they fit
// (kernels::cuda::*_device_sums; see the header for why).
#include "panoramix/ops/sample_sums.hpp"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/device_collectives.hpp"
#include "core/host_transfer.hpp"
#include "core/mirror_lower.hpp"
#include "ops/sample_sums/kernels.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/error.hpp"

namespace pmx {

struct sample_sums::state {
  state(const executor& e, int64_t samples, const sample_sums_outputs& o)
      : exec(e), c_exec(e), n(samples), out(o), acc(o) {}
  executor exec;
  executor c_exec;  // runs C's per-block op (on cuda with device sums: the budget they leave)
  int64_t n;
  sample_sums_outputs out;  // the caller's outputs
  // Where blocks are added on the host: `out`, or with rows split over ranks the whole n × n sums
  // of this rank's variants (own_*), summed to the rows' owners at flush.
  sample_sums_outputs acc;
  bool split = false;
  matrix_buffer<int32_t> own_S, own_N;
  matrix_buffer<double> own_C;
  std::vector<double> own_a;
  bool own_C_zeroed = false;  // own_C on cuda's device route: zeroed only when a block first needs it
  int64_t uniform_n = 0;  // variants of blocks without missing calls: N += this on every pair
  bool missing_seen = false;  // a block may have had missing calls (distances from S not exact)
  int64_t integer_at_flush = 0;  // integer_route_variants() at the last flush
  kernels::cuda::device_sums* device = nullptr;
  std::thread zeroing{};  // zeroes uninitialised outputs; joined by ready()

  // The host outputs may be written from here on.
  void ready() {
    if (zeroing.joinable()) zeroing.join();
  }
  void start_zeroing(const sample_sums_outputs& o) {
    const int threads = std::max(1, device ? exec.threads() / 2 : exec.threads());
    auto zero = [o, count = n * o.ld, threads] {
      auto fill = [&](auto* p) {
        if (!p) return;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t i = 0; i < count; ++i) p[i] = 0;
      };
      fill(o.S), fill(o.N), fill(o.C);
    };
    // Nothing to overlap with on the host backends: zero now.
    if (device) zeroing = std::thread(zero);
    else zero();
  }
  // Before C's per-block op writes into host memory.
  void before_host_C() {
    ready();
    if (split && acc.C && !own_C_zeroed) zero_own_C();
  }
  void zero_own_C() {
#pragma omp parallel for schedule(static) num_threads(std::max(1, exec.threads()))
    for (int64_t i = 0; i < n * n; ++i) own_C[i] = 0;
    own_C_zeroed = true;
  }
  void flush_to_owners();
};

sample_sums::sample_sums(const executor& exec, int64_t n, const sample_sums_outputs& out)
    : s_(std::make_unique<state>(state(exec, n, out))) {
  PMX_EXPECTS(n >= 0, "negative sample count");
  state& s = *s_;
  s.split = out.rows_over_ranks && exec.comm().distributed();
  const sample_range mine = rows_of_rank(n, exec.comm().rank(), exec.comm().size());
  PMX_EXPECTS(!(out.S || out.N || out.C) || out.ld >= n, "leading dimension smaller than the sample count");
  PMX_EXPECTS(out.S || out.N || out.C || out.a || out.S_on_device_only, "nothing to compute");
  PMX_EXPECTS(!out.S_on_device_only || !out.S, "S on the device only: no host S");
  PMX_EXPECTS(!s.split || !out.S_on_device_only, "S kept on the device cannot be split over ranks");
  if (out.S_on_device_only && exec.kind() != backend::cuda)
    throw unsupported_error("sample_sums: S kept on the device needs a cuda executor");
  // C alone is kept on the device only for its int8 route (PMX_TABLE_CROSSPROD=blas: per block).
  const bool c_resident = out.C && exec.tuning().table_crossprod != tuning::route::blas;
  if (exec.kind() == backend::cuda && n > 0 && (out.S || out.N || out.a || out.S_on_device_only || c_resident))
    s.device = kernels::cuda::open_device_sums(exec, n, out, s.c_exec);
  if (out.S_on_device_only && n > 0 && !s.device)
    throw unsupported_error("sample_sums: the " + std::to_string(n) + " x " + std::to_string(n) +
                            " sums do not fit the device memory budget (PMX_CUDA_MEMORY_MB)");
  if (s.split) {
    // The caller's outputs hold its rows only: the whole sums of this rank's variants are kept
    // here (S and N on the host only when the device does not keep them; C's host part is zeroed
    // when a block first needs it on cuda, where the int8 route usually takes every block).
    const auto nn = static_cast<size_t>(n * n);
    sample_sums_outputs& a = s.acc;
    a.ld = n;
    a.uninitialised = true;
    a.S = out.S && !s.device ? (s.own_S = matrix_buffer<int32_t>(nn)).data() : nullptr;
    a.N = out.N && !s.device ? (s.own_N = matrix_buffer<int32_t>(nn)).data() : nullptr;
    a.C = out.C ? (s.own_C = matrix_buffer<double>(nn)).data() : nullptr;
    if (out.a) s.own_a.assign(static_cast<size_t>(n), 0.0), a.a = s.own_a.data();
    if (out.uninitialised) {  // the caller's rows: added into at flush
      const int64_t count = mine.count * out.ld;
      if (out.S) std::fill_n(out.S, count, 0);
      if (out.N) std::fill_n(out.N, count, 0);
      if (out.C) std::fill_n(out.C, count, 0.0);
    }
    if (!s.device) s.own_C_zeroed = a.C != nullptr, s.start_zeroing(a);
  } else if (out.uninitialised && (out.S || out.N || out.C)) {
    s.start_zeroing(out);
  }
}

sample_sums::~sample_sums() {
  s_->ready();
  kernels::cuda::close_device_sums(s_->device);
}

const char* sample_sums::residence() const { return s_->device ? "device" : "host"; }

int64_t sample_sums::integer_route_variants() const {
  return s_->device ? kernels::cuda::integer_route_variants(s_->device) : 0;
}

void sample_sums::add(const variant_major_view& g, std::span<const code_table> c_tables,
                      std::span<const code_table> a_tables, bool has_missing) {
  state& s = *s_;
  const sample_sums_outputs& o = s.acc;
  PMX_EXPECTS(g.n_samples == s.n, "block has a different sample count");
  PMX_EXPECTS(!o.C || static_cast<int64_t>(c_tables.size()) == g.n_variants, "one C table per variant");
  PMX_EXPECTS(!o.a || static_cast<int64_t>(a_tables.size()) == g.n_variants, "one row-sum table per variant");
  if (g.n_variants == 0 || s.n == 0) return;
  if (!has_missing) s.uniform_n += g.n_variants;
  else s.missing_seen = true;
  sample_sums_outputs block = o;  // N of blocks without missing calls: counted at flush()
  if (!has_missing) block.N = nullptr;
  switch (s.exec.kind()) {
    case backend::reference: return s.ready(), kernels::reference::sample_sums_add(s.exec, g, c_tables, a_tables, block);
    case backend::cpu: return s.ready(), kernels::cpu::sample_sums_add(s.exec, g, c_tables, a_tables, block);
    case backend::cuda:
      if (s.device)
        return kernels::cuda::add_device_sums(s.device, s.exec, s.c_exec, g, c_tables, a_tables, o, has_missing,
                                              [&s] { s.before_host_C(); });
      return s.ready(), kernels::cuda::sample_sums_add(s.exec, g, c_tables, a_tables, block);
  }
}

void sample_sums::flush() {
  state& s = *s_;
  s.ready();
  if (s.split) return s.flush_to_owners();
  const sample_sums_outputs& o = s.out;
  if (s.device) kernels::cuda::flush_device_sums(s.device, s.exec, o);
  if (o.N && s.uniform_n) kernels::add_uniform_pairs(s.exec, s.n, o.N, o.ld, static_cast<int32_t>(s.uniform_n));
  s.uniform_n = 0;
}

void sample_sums::state::flush_to_owners() {
  const communicator& comm = exec.comm();
  const int P = comm.size(), me = comm.rank();
  std::vector<int64_t> first_row(static_cast<size_t>(P + 1));
  for (int o = 0; o < P; ++o) first_row[static_cast<size_t>(o)] = rows_of_rank(n, o, P).first;
  first_row[static_cast<size_t>(P)] = n;
  const int64_t r0 = first_row[static_cast<size_t>(me)], rows = first_row[static_cast<size_t>(me + 1)] - r0;
  // What any rank has: blocks with missing calls (N products), C in host memory, int8 C products.
  const int64_t integer_now = device ? kernels::cuda::integer_route_variants(device) : 0;
  int64_t facts[4] = {missing_seen ? 1 : 0, own_C_zeroed ? 1 : 0, integer_now - integer_at_flush, uniform_n};
  comm.sum(facts, 4);
  integer_at_flush = integer_now;
  const int threads = std::max(1, exec.threads());
  if (device) {  // the device's a goes into this rank's own, summed below with the host's
    sample_sums_outputs rows_out = out;
    rows_out.a = acc.a;
    kernels::cuda::flush_device_sums_to_owners(device, exec, rows_out, first_row.data(), facts[0] > 0, facts[2] > 0);
  }
  // The host sums: mirrored, summed to the rows' owners, this rank's rows added into its outputs.
  std::vector<int64_t> first(static_cast<size_t>(P + 1));
  for (int o = 0; o <= P; ++o) first[static_cast<size_t>(o)] = first_row[static_cast<size_t>(o)] * n;
  auto deliver = [&](auto* whole, auto* mine) {
    detail::mirror_lower(whole, n, threads);
    detail::sum_to_owners(exec.host(), whole, first.data());
    detail::add_rows(mine, out.ld, whole + r0 * n, n, rows, n, false, 0, 0, threads);
  };
  if (acc.S && out.S) deliver(acc.S, out.S), std::fill_n(acc.S, n * n, 0);
  if (acc.N && out.N && facts[0] > 0) deliver(acc.N, out.N), std::fill_n(acc.N, n * n, 0);
  if (acc.C && out.C && facts[1] > 0) {
    if (!own_C_zeroed) zero_own_C();  // another rank wrote host C: this one adds its zeros
    deliver(acc.C, out.C);
    if (device) own_C_zeroed = false;
    else std::fill_n(acc.C, n * n, 0.0);
  }
  if (out.N && facts[3] > 0) {  // every pair of the variants without missing calls, on any rank
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < n; ++j) out.N[i * out.ld + j] += static_cast<int32_t>(facts[3]);
  }
  uniform_n = 0;
  if (out.a) {
    comm.sum(own_a.data(), n);
    for (int64_t i = 0; i < n; ++i) out.a[i] += own_a[static_cast<size_t>(i)], own_a[static_cast<size_t>(i)] = 0;
  }
}

}  // namespace pmx

namespace pmx {

void sample_sums::finish_gaussian_kernel(double gamma, const double* covariates, int64_t nc, double* K, int64_t ldk) {
  state& s = *s_;
  PMX_EXPECTS(s.out.S || s.out.S_on_device_only, "the Gaussian kernel needs S");
  PMX_EXPECTS(ldk >= s.n && (nc == 0 || covariates), "kernel: leading dimension, covariates");
  if (s.missing_seen)
    throw input_error("the Gaussian kernel from integer sums needs every call present (a block had missing calls)");
  s.ready();
  const bool k_on_device = detail::points_to_device(K);
  if (s.device && k_on_device)
    return kernels::cuda::gaussian_kernel_from_device_sums(s.device, s.exec, gamma, covariates, nc, K, ldk);
  PMX_EXPECTS(!s.out.S_on_device_only, "S kept on the device: K must be device memory");
  if (s.device) kernels::cuda::flush_device_sums(s.device, s.exec, {.S = s.out.S, .ld = s.out.ld});
  if (!k_on_device) {
    kernels::gaussian_kernel_from_sums(s.exec, s.n, s.out.S, s.out.ld, gamma, covariates, nc, K, ldk);
  } else {  // host sums, device K (a cuda executor whose sums did not fit): made here, copied up
    matrix_buffer<double> host(static_cast<size_t>(s.n * s.n));
    kernels::gaussian_kernel_from_sums(s.exec, s.n, s.out.S, s.out.ld, gamma, covariates, nc, host.data(), s.n);
    for (int64_t i = 0; i < s.n; ++i) detail::executor_from_host(K + i * ldk, host.data() + i * s.n, sizeof(double) * s.n, true);
  }
  for (int64_t i = 0; i < s.n; ++i) std::fill_n(s.out.S + i * s.out.ld, i + 1, 0);
}

}  // namespace pmx
