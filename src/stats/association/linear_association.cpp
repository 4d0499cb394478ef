// Linear-regression association, plink2 --glm's model (linear_association.hpp).
#include "panoramix/linear_association.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "panoramix/error.hpp"
#include "stats/association/regression_parts.hpp"

namespace pmx {
namespace {

constexpr double na = std::numeric_limits<double>::quiet_NaN();

struct variant_fit {
  int64_t obs = 0;
  glm_error error = glm_error::none;
};

variant_fit fit_variant(const detail::regression_design& d, const uint8_t* calls, const double* W,
                        const variant_counts& counts, double* beta, double* se, double* t, double* p,
                        std::vector<double>& corr, detail::variant_gram& g) {
  const int P = static_cast<int>(d.q + 2);  // predictors: intercept, x, covariates
  detail::variant_normal_equations(d, calls, W, counts, g);
  variant_fit f;
  f.obs = g.called;
  if ((f.error = detail::screen_predictors(g, P, corr)) != glm_error::none) return f;
  std::vector<double>& A = g.A;
  if (!detail::invert_spd(A, P)) return f.error = glm_error::vif_too_high, f;
  std::vector<double> coef(static_cast<size_t>(P), 0.0);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) coef[i] += A[i * P + j] * g.b[j];
  double fitted = 0;
  for (int i = 0; i < P; ++i) fitted += coef[i] * g.b[i];
  const int64_t df = g.called - P;
  const double sigma2 = std::max(g.yy - fitted, 0.0) / double(df);
  // In double (Boost's default promotes to long double: powl was a quarter of the run time); its
  // relative error stays far below the six digits the table prints.
  using double_policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
  const boost::math::students_t_distribution<double, double_policy> dist(static_cast<double>(df));
  for (int k = 1; k < P; ++k) {  // x, then the covariates
    beta[k - 1] = coef[k];
    se[k - 1] = std::sqrt(sigma2 * A[k * P + k]);
    t[k - 1] = coef[k] / se[k - 1];
    p[k - 1] = std::isfinite(t[k - 1]) ? 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t[k - 1]))) : na;
  }
  return f;
}

}  // namespace

const char* glm_error_name(glm_error e) {
  switch (e) {
    case glm_error::none:
      return ".";
    case glm_error::const_omitted_allele:
      return "CONST_OMITTED_ALLELE";
    case glm_error::corr_too_high:
      return "CORR_TOO_HIGH";
    case glm_error::vif_too_high:
      return "VIF_TOO_HIGH";
    case glm_error::too_few_samples:
      return "SAMPLE_CT<=COVAR_CT";
    case glm_error::firth_convergence_failed:
      return "FIRTH_CONVERGE_FAIL";
  }
  return "?";
}

linear_association run_linear_association(const executor& exec, const genotype_source& data, std::span<const double> y,
                                          const double* covariates, int64_t q, const std::vector<std::string>& names,
                                          std::span<const double> alt_freq, progress_sink* progress) {
  const int64_t n = data.n_samples(), m = data.n_variants();
  PMX_EXPECTS(static_cast<int64_t>(y.size()) == n, "one phenotype value per sample");
  PMX_EXPECTS(static_cast<int64_t>(alt_freq.size()) == m, "one frequency per variant");
  PMX_EXPECTS(q == 0 || (covariates && static_cast<int64_t>(names.size()) == q), "covariates and their names");
  const detail::regression_design d = detail::make_regression_design(y, covariates, q);
  linear_association r;
  r.samples = static_cast<int64_t>(d.kept.size());
  r.tests.push_back("ADD");
  r.tests.insert(r.tests.end(), names.begin(), names.end());
  const int64_t T = q + 1, l = d.l;
  r.a1_is_ref.resize(static_cast<size_t>(m));
  r.obs_ct.resize(static_cast<size_t>(m));
  r.error.resize(static_cast<size_t>(m));
  for (auto* v : {&r.beta, &r.se, &r.t, &r.p}) v->assign(static_cast<size_t>(m * T), na);
  detail::for_each_product_block(
      exec, data, d, progress, [&](int64_t first, int64_t count, const variant_major_view& g, const double* W, const variant_counts* counts) {
#pragma omp parallel num_threads(exec.threads())
        {
          std::vector<double> corr;
          detail::variant_gram vg;
#pragma omp for schedule(dynamic, 64)
          for (int64_t b = 0; b < count; ++b) {
            const int64_t j = first + b;
            const size_t o = static_cast<size_t>(j * T);
            const variant_fit f = fit_variant(d, g.row(b), W + b * l, counts[b], &r.beta[o], &r.se[o], &r.t[o], &r.p[o],
                                              corr, vg);
            r.obs_ct[j] = f.obs, r.error[j] = f.error;
            r.a1_is_ref[j] = detail::a1_is_ref(alt_freq[j]);
            if (r.a1_is_ref[j] && f.error == glm_error::none) r.beta[o] = -r.beta[o], r.t[o] = -r.t[o];
          }
        }
      });
  return r;
}

}  // namespace pmx
