// sample_sums: validation and dispatch. Every backend adds block by block into the host outputs
// (kernels::*::sample_sums_add); cuda keeps S, N and a on the device instead when they fit
// (kernels::cuda::*_device_sums; see the header for why).
#include "panoramix/ops/sample_sums.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "ops/sample_sums/kernels.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/matrix_buffer.hpp"
#include "panoramix/error.hpp"

namespace pmx {

struct sample_sums::state {
  executor exec;
  executor c_exec;  // runs C's per-block op (on cuda with device sums: the budget they leave)
  int64_t n;
  sample_sums_outputs out;
  int64_t uniform_n = 0;  // variants of blocks without missing calls: N += this on every pair
  bool missing_seen = false;  // a block may have had missing calls (distances from S not exact)
  kernels::cuda::device_sums* device = nullptr;
  std::thread zeroing{};  // zeroes uninitialised outputs; joined by ready()

  // The host outputs may be written from here on.
  void ready() {
    if (zeroing.joinable()) zeroing.join();
  }
  void start_zeroing() {
    const int threads = std::max(1, device ? exec.threads() / 2 : exec.threads());
    auto zero = [o = out, count = n * out.ld, threads] {
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
};

sample_sums::sample_sums(const executor& exec, int64_t n, const sample_sums_outputs& out)
    : s_(std::make_unique<state>(state{exec, exec, n, out})) {
  PMX_EXPECTS(n >= 0, "negative sample count");
  PMX_EXPECTS(!(out.S || out.N || out.C) || out.ld >= n, "leading dimension smaller than the sample count");
  PMX_EXPECTS(out.S || out.N || out.C || out.a || out.S_on_device_only, "nothing to compute");
  PMX_EXPECTS(!out.S_on_device_only || !out.S, "S on the device only: no host S");
  if (out.S_on_device_only && exec.kind() != backend::cuda)
    throw unsupported_error("sample_sums: S kept on the device needs a cuda executor");
  // C alone is kept on the device only for its int8 route (PMX_TABLE_CROSSPROD=blas: per block).
  const bool c_resident = out.C && exec.tuning().table_crossprod != tuning::route::blas;
  if (exec.kind() == backend::cuda && n > 0 && (out.S || out.N || out.a || out.S_on_device_only || c_resident))
    s_->device = kernels::cuda::open_device_sums(exec, n, out, s_->c_exec);
  if (out.S_on_device_only && n > 0 && !s_->device)
    throw unsupported_error("sample_sums: the " + std::to_string(n) + " x " + std::to_string(n) +
                            " sums do not fit the device memory budget (PMX_CUDA_MEMORY_MB)");
  if (out.uninitialised && (out.S || out.N || out.C)) s_->start_zeroing();
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
  const sample_sums_outputs& o = s.out;
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
                                              [&s] { s.ready(); });
      return s.ready(), kernels::cuda::sample_sums_add(s.exec, g, c_tables, a_tables, block);
  }
}

void sample_sums::flush() {
  state& s = *s_;
  const sample_sums_outputs& o = s.out;
  s.ready();
  if (s.device) kernels::cuda::flush_device_sums(s.device, s.exec, o);
  if (o.N && s.uniform_n) kernels::add_uniform_pairs(s.exec, s.n, o.N, o.ld, static_cast<int32_t>(s.uniform_n));
  s.uniform_n = 0;
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
