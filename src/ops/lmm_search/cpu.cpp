// lmm_search on the host: the variants in parallel (OpenMP), each searched as GEMMA does, with the
// [W | y] sums at the λ every search visits (the grid and l_max) formed once for all of them.
#include <cmath>
#include <limits>

#include "ops/lmm_search/kernels.hpp"
#include "ops/lmm_search/restricted_likelihood.hpp"

namespace pmx::kernels {
namespace {

// What every variant's fit shares: the columns [W | y] and, at the shared λ, the weights and the
// [W | y] Gram sums (powers 0..2).
struct shared_fit {
  const lmm_search_operand& m;
  std::vector<detail::lambda_weights> points;
  std::vector<detail::weighted_grams> point_grams;
  detail::reml::search search;

  explicit shared_fit(const lmm_search_operand& model) : m(model) {
    for (double l : m.grid()) share(l);
    if (shared(m.range().l_max) < 0) share(m.range().l_max);
    search = {m.range().l_min, m.range().l_max, m.range().regions, m.grid().data()};
  }
  const double* col(int a) const { return m.Wy().data() + static_cast<int64_t>(a) * m.n(); }
  void share(double lambda) {
    std::vector<const double*> cols;
    for (int a = 0; a <= m.c(); ++a) cols.push_back(col(a));
    points.emplace_back().set(m.d(), lambda, 2, true);
    detail::weigh_columns(points.back(), cols.data(), m.c() + 1, m.n(), 2, true, point_grams.emplace_back());
  }
  int shared(double lambda) const {
    for (size_t k = 0; k < points.size(); ++k)
      if (points[k].lambda == lambda) return static_cast<int>(k);
    return -1;
  }
};

// One variant's fit: columns [W | x | y]; its Gram sums at a shared λ from the [W | y] block plus
// the pairs with x, elsewhere from every pair.
class variant_fit {
 public:
  explicit variant_fit(const shared_fit& s) : s_(s), K_(s.m.c() + 2), cols_(static_cast<size_t>(K_)) {
    for (int a = 0; a < s.m.c(); ++a) cols_[a] = s.col(a);
    cols_[K_ - 1] = s.col(s.m.c());
    g_.resize(K_);
  }

  // Sets x = Uᵀz and its unweighted sums; false when x is collinear with the covariates.
  bool set_x(const double* xt) {
    cols_[x()] = xt;
    copy_shared(0, s_.point_grams[0]);
    add_x_pairs(nullptr, 0);
    return detail::r2_on_previous(g_, x()) <= detail::reml::max_r2;
  }

  // The likelihood (order 0) and its derivatives (orders 1, 2) at λ.
  detail::reml::point operator()(double lambda, int order) {
    const int k = order <= 1 ? s_.shared(lambda) : -1;
    if (k >= 0) {
      const detail::lambda_weights& w = s_.points[k];
      for (int r = 1; r <= order + 1; ++r) copy_shared(r, s_.point_grams[k]);
      add_x_pairs(&w, order + 1);
      g_.lambda = w.lambda, g_.trace_h = w.trace_h, g_.trace_h2 = w.trace_h2, g_.logdet_h = w.logdet_h;
      return detail::restricted_likelihood(g_, s_.m.n(), order);
    }
    return detail::restricted_likelihood(weigh(lambda, order + 1, order == 0), s_.m.n(), order);
  }

  // Every weighted pair at λ (powers 1..max_power), the unweighted ones kept.
  const detail::weighted_grams& weigh(double lambda, int max_power, bool with_logdet = false) {
    w_.set(s_.m.d(), lambda, max_power, with_logdet);
    detail::weigh_columns(w_, cols_.data(), K_, s_.m.n(), max_power, false, g_);
    return g_;
  }

 private:
  int x() const { return K_ - 2; }
  int shared(int a) const { return a == K_ - 1 ? s_.m.c() : a; }  // index in [W | y]
  void copy_shared(int r, const detail::weighted_grams& wy) {
    for (int a = 0; a < K_; ++a)
      for (int b = 0; b < K_; ++b)
        if (a != x() && b != x()) g_.at(r, a, b) = wy.at(r, shared(a), shared(b));
  }
  // Σ h^r x v_a for every column a at the powers 1..max_power of w (unweighted: max_power 0).
  void add_x_pairs(const detail::lambda_weights* w, int max_power) {
    static const detail::lambda_weights none;
    sums_.resize(static_cast<size_t>(4 * K_));
    detail::weigh_against(w ? *w : none, cols_[x()], cols_.data(), K_, s_.m.n(), max_power, w == nullptr,
                          sums_.data(), scratch_);
    for (int a = 0; a < K_; ++a)
      for (int r = w ? 1 : 0; r <= max_power; ++r) g_.at(r, x(), a) = g_.at(r, a, x()) = sums_[4 * a + r];
  }
  const shared_fit& s_;
  int K_;
  std::vector<const double*> cols_;
  detail::weighted_grams g_;
  detail::lambda_weights w_;
  std::vector<double> sums_, scratch_;
};

lmm_variant_fit fit_variant(variant_fit& fit, const shared_fit& s, const double* xt, double fixed_lambda) {
  lmm_variant_fit out;
  out.status = lmm_fit_status::tested;
  if (!fit.set_x(xt)) {
    out.status = lmm_fit_status::collinear_with_covariates;
    return out;
  }
  detail::reml::fit lf;
  if (!std::isnan(fixed_lambda)) {
    lf.lambda = fixed_lambda;
    lf.logl = fit(fixed_lambda, 0).f;
  } else {
    auto grid_dev1 = [&](int k) { return fit(s.search.grid[k], 1).dev1; };
    lf = detail::reml::maximise(s.search, grid_dev1, fit);
  }
  if (std::isnan(lf.lambda)) {
    out.status = lmm_fit_status::lambda_not_found;
    return out;
  }
  const detail::reml::wald w = detail::wald_test(fit.weigh(lf.lambda, 1), s.m.n());
  out.beta = w.beta, out.se = w.se, out.p = detail::wald_p(w);
  out.lambda = lf.lambda, out.logl = lf.logl;
  return out;
}

}  // namespace

void host_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx,
                       const uint8_t* test, double fixed_lambda, lmm_variant_fit* out, int threads) {
  const shared_fit s(model);
#pragma omp parallel num_threads(threads)
  {
    variant_fit fit(s);
#pragma omp for schedule(dynamic, 16)
    for (int64_t j = 0; j < count; ++j)
      out[j] = test[j] ? fit_variant(fit, s, Xt + j * ldx, fixed_lambda) : lmm_variant_fit{};
  }
}

namespace cpu {
void lmm_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx,
                      const uint8_t* test, double fixed_lambda, lmm_variant_fit* out) {
  host_fit_variants(model, count, Xt, ldx, test, fixed_lambda, out, model.exec().threads());
}
}  // namespace cpu

}  // namespace pmx::kernels
