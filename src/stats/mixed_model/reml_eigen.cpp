// Eigen evaluator of the REML likelihood: G = U S Uᵀ once (O(n³)), Ã = UᵀA once; then
// H(h²) = U (h²S + (1−h²)I) Uᵀ is diagonal in that basis and every evaluation is O(n q²).

#include <cmath>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/reml.hpp"

namespace pmx {
namespace {

class eigen_evaluator final : public h2_evaluator {
 public:
  eigen_evaluator(const executor& exec, int64_t n, const double* G, int64_t q, const double* A)
      : n_(n), q_(q), host_(exec.host()), s_(n), U_(n * n), At_(n * q) {
    std::vector<double> work(G, G + n * n);
    // LAPACK's eigensolvers can iterate without end on a NaN: refuse it here, naming the entry.
    for (int64_t i = 0; i < n * n; ++i)
      if (!std::isfinite(work[i]))
        throw numeric_error("eigen evaluator: G entry (" + std::to_string(i / n + 1) + ", " +
                            std::to_string(i % n + 1) + ") is not finite");
    symmetric_eigen(exec, n, work.data(), n, n, s_.data(), U_.data(), n);
    for (double v : s_)
      if (!std::isfinite(v)) throw numeric_error("eigen evaluator: the eigendecomposition of G gave a non-finite eigenvalue");
    // Ã = Uᵀ A (n × q, column-major).
    dense_gemm(host_, true, false, n, q, n, 1.0, U_.data(), n, A, n, 0.0,
                At_.data(), n);
  }

  int64_t n() const override { return n_; }
  int64_t q() const override { return q_; }
  std::string name() const override { return "eigen"; }
  const executor& host() const override { return host_; }
  // s_ is descending: the smallest eigenvalue is last.
  double h2_limit() const override {
    const double smin = s_.empty() ? 0 : s_.back();
    return smin < 0 ? 1.0 / (1.0 - smin) : 1.0;
  }

  h2_evaluation evaluate(double h2, h2_detail detail) const override {
    h2_evaluation e;
    e.h2 = h2;
    e.detail = detail;
    std::vector<double> inv(n_);
    long double logdet = 0, t1 = 0, t2 = 0;
    for (int64_t i = 0; i < n_; ++i) {
      const double d = h2 * s_[i] + (1.0 - h2);
      if (!(d > 0)) throw not_pd(h2, i);
      inv[i] = 1.0 / d;
      logdet += std::log(d);
      t1 += inv[i];
      t2 += inv[i] * inv[i];
    }
    e.logdet_H = static_cast<double>(logdet);
    e.trace_Hinv = static_cast<double>(t1);
    e.trace_Hinv2 = static_cast<double>(t2);
    const int levels = detail == h2_detail::value ? 2 : 3;
    for (int k = 0; k < levels; ++k) e.gram[k].assign(q_ * q_, 0.0);
    // gram[k](a, b) = Σ_i Ã_ia Ã_ib / d_i^(k+1)
    for (int64_t a = 0; a < q_; ++a)
      for (int64_t b = 0; b <= a; ++b) {
        const double* xa = At_.data() + a * n_;
        const double* xb = At_.data() + b * n_;
        double s[3] = {0, 0, 0};
        for (int64_t i = 0; i < n_; ++i) {
          double w = xa[i] * xb[i] * inv[i];
          s[0] += w;
          w *= inv[i];
          s[1] += w;
          s[2] += w * inv[i];
        }
        for (int k = 0; k < levels; ++k) e.gram[k][a * q_ + b] = e.gram[k][b * q_ + a] = s[k];
      }
    return e;
  }

  void solve(double h2, int64_t m, double* B, int64_t ldb) const override {
    // H⁻¹B = U D⁻¹ Uᵀ B.
    std::vector<double> T(n_ * m);
    dense_gemm(host_, true, false, n_, m, n_, 1.0, U_.data(), n_, B, ldb,
                0.0, T.data(), n_);
    for (int64_t i = 0; i < n_; ++i) {
      const double d = h2 * s_[i] + (1.0 - h2);
      if (!(d > 0)) throw not_pd(h2, i);
      for (int64_t c = 0; c < m; ++c) T[c * n_ + i] /= d;
    }
    dense_gemm(host_, false, false, n_, m, n_, 1.0, U_.data(), n_, T.data(),
                n_, 0.0, B, ldb);
  }

 private:
  int64_t n_, q_;
  executor host_;
  std::vector<double> s_, U_, At_;

  numeric_error not_pd(double h2, int64_t i) const {
    return numeric_error("h²G + (1−h²)I is not positive definite at h² = " + std::to_string(h2) +
                         ": G has eigenvalue " + std::to_string(s_[i]) + " (a GRM with negative "
                         "eigenvalues, e.g. from missing calls or a --grm not built from genotypes)");
  }
};

}  // namespace

std::unique_ptr<h2_evaluator> make_eigen_evaluator(const executor& exec, int64_t n, const double* G,
                                                   int64_t q, const double* A) {
  return std::make_unique<eigen_evaluator>(exec, n, G, q, A);
}

}  // namespace pmx
