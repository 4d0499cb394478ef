#include "panoramix/ops/genotype_gemm.hpp"

#include "core/device_collectives.hpp"
#include "ops/genotype_gemm/kernels.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

void check(const variant_major_view& g, const gemm_centring& c, int64_t l, const double* in,
           int64_t ld_in, int64_t in_rows, const double* out, int64_t ld_out, int64_t out_rows) {
  PMX_EXPECTS(g.n_samples >= 0 && g.n_variants >= 0, "negative matrix size");
  PMX_EXPECTS(g.n_samples == 0 || g.n_variants == 0 || g.data, "genotype data is null");
  PMX_EXPECTS(g.row_bytes >= (g.n_samples + 3) / 4, "row_bytes smaller than ceil(n_samples / 4)");
  PMX_EXPECTS(static_cast<int64_t>(c.p.size()) == g.n_variants, "one allele frequency per variant");
  PMX_EXPECTS(c.scale.empty() || static_cast<int64_t>(c.scale.size()) == g.n_variants,
              "one scale per variant, or none");
  PMX_EXPECTS(l >= 0, "negative number of columns");
  PMX_EXPECTS(ld_in >= l && ld_out >= l, "leading dimension smaller than the column count");
  PMX_EXPECTS(l == 0 || in_rows == 0 || in, "input matrix is null");
  PMX_EXPECTS(l == 0 || out_rows == 0 || out, "output matrix is null");
}

}  // namespace

void gemm(const executor& exec, const variant_major_view& g, const gemm_centring& centring,
          int64_t l, const double* lambda, int64_t ld_lambda, double beta, double* Y,
          int64_t ld_y) {
  check(g, centring, l, lambda, ld_lambda, g.n_variants, Y, ld_y, g.n_samples);
  switch (exec.kind()) {
    case backend::reference:
      return kernels::reference::gemm(exec, g, centring, l, lambda, ld_lambda, beta, Y, ld_y);
    case backend::cpu:
      return kernels::cpu::gemm(exec, g, centring, l, lambda, ld_lambda, beta, Y, ld_y);
    case backend::cuda:
      return kernels::cuda::gemm(gemm_operand(exec, g), centring, l, lambda, ld_lambda, beta, Y, ld_y);
  }
}

void gemm_transposed(const executor& exec, const variant_major_view& g,
                     const gemm_centring& centring, int64_t l, const double* lambda,
                     int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  check(g, centring, l, lambda, ld_lambda, g.n_samples, W, ld_w, g.n_variants);
  switch (exec.kind()) {
    case backend::reference:
      return kernels::reference::gemm_transposed(exec, g, centring, l, lambda, ld_lambda, beta, W,
                                                 ld_w);
    case backend::cpu:
      return kernels::cpu::gemm_transposed(exec, g, centring, l, lambda, ld_lambda, beta, W, ld_w);
    case backend::cuda:
      return kernels::cuda::gemm_transposed(gemm_operand(exec, g), centring, l, lambda, ld_lambda,
                                            beta, W, ld_w);
  }
}

gemm_operand::gemm_operand(const executor& exec, const variant_major_view& g, gemm_accuracy accuracy,
                           operand_samples samples)
    : exec_(exec), view_(g), accuracy_(accuracy), samples_(samples) {
  PMX_EXPECTS(g.n_samples >= 0 && g.n_variants >= 0, "negative matrix size");
  PMX_EXPECTS(g.n_samples == 0 || g.n_variants == 0 || g.data, "genotype data is null");
  PMX_EXPECTS(g.row_bytes >= (g.n_samples + 3) / 4, "row_bytes smaller than ceil(n_samples / 4)");
  if (exec.on_device()) device_.reset(kernels::cuda::upload(exec, g));
}
gemm_operand::~gemm_operand() = default;
gemm_operand::gemm_operand(gemm_operand&&) noexcept = default;
gemm_operand& gemm_operand::operator=(gemm_operand&&) noexcept = default;
void gemm_operand::device_copy_deleter::operator()(device_copy* d) const { kernels::cuda::release(d); }

void gemm(const gemm_operand& g, const gemm_centring& centring, int64_t l, const double* lambda,
          int64_t ld_lambda, double beta, double* Y, int64_t ld_y) {
  const variant_major_view& v = g.view();
  check(v, centring, l, lambda, ld_lambda, v.n_variants, Y, ld_y, v.n_samples);
  switch (g.exec().kind()) {
    case backend::reference:
      return kernels::reference::gemm(g.exec(), v, centring, l, lambda, ld_lambda, beta, Y, ld_y);
    case backend::cpu: return kernels::cpu::gemm(g, centring, l, lambda, ld_lambda, beta, Y, ld_y);
    case backend::cuda: return kernels::cuda::gemm(g, centring, l, lambda, ld_lambda, beta, Y, ld_y);
  }
}

// This rank's Zᵀ·Λ̃ (the whole product for an operand of every sample).
static void local_gemm_transposed(const gemm_operand& g, const gemm_centring& centring, int64_t l,
                                  const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  const variant_major_view& v = g.view();
  switch (g.exec().kind()) {
    case backend::reference:
      return kernels::reference::gemm_transposed(g.exec(), v, centring, l, lambda, ld_lambda, beta, W, ld_w);
    case backend::cpu: return kernels::cpu::gemm_transposed(g, centring, l, lambda, ld_lambda, beta, W, ld_w);
    case backend::cuda: return kernels::cuda::gemm_transposed(g, centring, l, lambda, ld_lambda, beta, W, ld_w);
  }
}

void gemm_transposed(const gemm_operand& g, const gemm_centring& centring, int64_t l,
                     const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  const variant_major_view& v = g.view();
  check(v, centring, l, lambda, ld_lambda, v.n_samples, W, ld_w, v.n_variants);
  if (g.summed_over_ranks()) {
    // This rank's product, dense, in the memory W is in; then the rank-ordered sum into W.
    const int64_t k = v.n_variants;
    const bool device = g.exec().on_device() && detail::points_to_device(W);
    const executor& at = device ? g.exec() : g.exec().host();
    executor_array<double> partial;
    if (!(beta == 0.0 && ld_w == l)) partial = executor_array<double>(at, static_cast<size_t>(k * l));
    double* P = partial.size() ? partial.data() : W;
    local_gemm_transposed(g, centring, l, lambda, ld_lambda, 0.0, P, l);
    return detail::sum_over_ranks(g.exec(), P, k, l, beta, W, ld_w);
  }
  return local_gemm_transposed(g, centring, l, lambda, ld_lambda, beta, W, ld_w);
}

}  // namespace pmx
