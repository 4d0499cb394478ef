// sample_sums: host accumulation for every backend, device-resident accumulation for cuda when
// the n×n sums fit (see the header for why).
#include "panoramix/ops/sample_sums.hpp"

#include <vector>

#include "ops/sample_sums/cuda_detail.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/packed_genotypes.hpp"

namespace pmx {

struct sample_sums::state {
  executor exec;
  executor c_exec;  // runs table_crossprod for C (on cuda: with the budget the resident sums leave)
  int64_t n;
  sample_sums_outputs out;
  int64_t uniform_n = 0;  // variants of blocks without missing calls: N += this on every pair
  kernels::sample_sums_cuda::device_sums* device = nullptr;
};

sample_sums::sample_sums(const executor& exec, int64_t n, const sample_sums_outputs& out)
    : s_(std::make_unique<state>(state{exec, exec, n, out})) {
  PMX_EXPECTS(n >= 0, "negative sample count");
  PMX_EXPECTS(!(out.S || out.N || out.C) || out.ld >= n, "leading dimension smaller than the sample count");
  PMX_EXPECTS(out.S || out.N || out.C || out.a, "nothing to compute");
  if (exec.kind() == backend::cuda && n > 0 && (out.S || out.N || out.a)) {
    const int64_t budget = kernels::sample_sums_cuda::device_budget(exec);
    // When C is wanted too, its per-block op needs room of its own: the resident sums take at
    // most half of the budget and C's op gets the rest.
    s_->device = kernels::sample_sums_cuda::create(exec, n, out.S != nullptr, out.N != nullptr, out.a != nullptr,
                                                   out.C ? budget / 2 : budget);
    if (s_->device && out.C)
      s_->c_exec.set_device_memory_budget(budget - kernels::sample_sums_cuda::held_bytes(s_->device));
  }
}

sample_sums::~sample_sums() { kernels::sample_sums_cuda::destroy(s_->device); }

const char* sample_sums::residence() const { return s_->device ? "device" : "host"; }

void sample_sums::add(const variant_major_view& g, std::span<const code_table> c_tables,
                      std::span<const code_table> a_tables, bool has_missing) {
  state& s = *s_;
  const sample_sums_outputs& o = s.out;
  PMX_EXPECTS(g.n_samples == s.n, "block has a different sample count");
  PMX_EXPECTS(!o.C || static_cast<int64_t>(c_tables.size()) == g.n_variants, "one C table per variant");
  PMX_EXPECTS(!o.a || static_cast<int64_t>(a_tables.size()) == g.n_variants, "one row-sum table per variant");
  if (g.n_variants == 0 || s.n == 0) return;
  if (!has_missing) s.uniform_n += g.n_variants;
  if (o.C) table_crossprod(s.c_exec, g, c_tables, o.C, o.ld);
  if (s.device) {
    kernels::sample_sums_cuda::add(s.device, s.exec, g, o.a ? a_tables.front().data() : nullptr, has_missing);
    return;
  }
  int32_t* N = has_missing ? o.N : nullptr;
  if (o.S || N) {
    const packed_rows t = transpose_to_sample_major(g, s.exec.threads());
    crossprod_symmetric(s.exec, t.view(), {.S = o.S, .N = N, .ld = o.ld});
  }
  if (o.a) table_rowsums(s.exec, g, a_tables, std::span<double>(o.a, static_cast<size_t>(s.n)));
}

void sample_sums::flush() {
  state& s = *s_;
  const sample_sums_outputs& o = s.out;
  if (s.device) kernels::sample_sums_cuda::flush(s.device, s.exec, o.S, o.N, o.ld, o.a);
  if (o.N && s.uniform_n) {
    const auto k = static_cast<int32_t>(s.uniform_n);
#pragma omp parallel for schedule(dynamic, 64) num_threads(s.exec.threads())
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t j = 0; j <= i; ++j) o.N[i * o.ld + j] += k;
  }
  s.uniform_n = 0;
}

}  // namespace pmx
