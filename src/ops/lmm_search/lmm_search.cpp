// lmm_search: the operand (null model, device upload), validation and dispatch (cpu.cpp,
// reference.cpp, cuda.cu).
#include "panoramix/ops/lmm_search.hpp"

#include <cmath>

#include "ops/lmm_search/kernels.hpp"
#include "ops/lmm_search/restricted_likelihood.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {

// The REML fit of [W | y] by GEMMA's search, and its yᵀPy.
lmm_null_fit fit_null(const lmm_search_operand& m) {
  std::vector<const double*> cols;
  for (int a = 0; a <= m.c(); ++a) cols.push_back(m.Wy().data() + static_cast<int64_t>(a) * m.n());
  detail::weighted_grams g;
  detail::lambda_weights w;
  auto at = [&](double l, int order) {
    w.set(m.d(), l, order + 1, true);
    detail::weigh_columns(w, cols.data(), m.c() + 1, m.n(), order + 1, true, g);
    return detail::restricted_likelihood(g, m.n(), order);
  };
  auto grid_dev1 = [&](int k) { return at(m.grid()[k], 1).dev1; };
  const detail::reml::search s{m.range().l_min, m.range().l_max, m.range().regions, m.grid().data()};
  const detail::reml::fit null = detail::reml::maximise(s, grid_dev1, at);
  if (std::isnan(null.lambda))
    throw numeric_error("--lmm: the search for the null model's lambda did not converge (GEMMA's search)");
  w.set(m.d(), null.lambda, 1, false);
  detail::weigh_columns(w, cols.data(), m.c() + 1, m.n(), 1, true, g);
  return {null.lambda, null.logl, detail::projected_yy(g)};
}

}  // namespace

lmm_search_operand::lmm_search_operand(const executor& exec, int64_t n, int c, const double* d, const double* Wy,
                                       const lmm_search_range& range)
    : exec_(exec), n_(n), c_(c), range_(range) {
  PMX_EXPECTS(n > c + 1, "more samples than fixed-effect columns plus one");
  PMX_EXPECTS(c >= 1, "at least one fixed-effect column (the intercept)");
  PMX_EXPECTS(d && Wy, "eigenvalues and rotated columns");
  PMX_EXPECTS(range.l_min > 0 && range.l_max > range.l_min && range.regions >= 1, "a search range");
  d_.assign(d, d + n);
  Wy_.assign(Wy, Wy + n * (c + 1));
  grid_ = detail::search_grid(range);
  null_ = fit_null(*this);
  if (exec.kind() == backend::cuda && c + 2 <= max_device_columns) device_.reset(kernels::cuda::upload_lmm_model(*this));
}
lmm_search_operand::~lmm_search_operand() = default;
lmm_search_operand::lmm_search_operand(lmm_search_operand&&) noexcept = default;
lmm_search_operand& lmm_search_operand::operator=(lmm_search_operand&&) noexcept = default;
void lmm_search_operand::device_copy_deleter::operator()(device_copy* d) const { kernels::cuda::release_lmm_model(d); }

void lmm_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx,
                      const uint8_t* test, double fixed_lambda, lmm_variant_fit* out) {
  PMX_EXPECTS(count >= 0, "negative variant count");
  PMX_EXPECTS(ldx >= model.n(), "leading dimension smaller than n");
  PMX_EXPECTS(count == 0 || (Xt && test && out), "operand is null");
  PMX_EXPECTS(std::isnan(fixed_lambda) || fixed_lambda > 0, "a positive fixed lambda");
  if (count == 0) return;
  switch (model.exec().kind()) {
    case backend::reference: return kernels::reference::lmm_fit_variants(model, count, Xt, ldx, test, fixed_lambda, out);
    case backend::cpu: return kernels::cpu::lmm_fit_variants(model, count, Xt, ldx, test, fixed_lambda, out);
    case backend::cuda: return kernels::cuda::lmm_fit_variants(model, count, Xt, ldx, test, fixed_lambda, out);
  }
}

}  // namespace pmx
