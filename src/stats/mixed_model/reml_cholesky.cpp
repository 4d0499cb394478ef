// Cholesky evaluator of the REML likelihood: each evaluation factors H = h²G + (1−h²)I through the
// shifted_solve op (LAPACK on a copy / cuSOLVER on a device-resident G). No eigendecomposition:
// the path for sample counts where an n³ eigensolver is too slow but a few dozen factorisations
// are not.

#include <cmath>
#include <memory>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "panoramix/reml.hpp"

namespace pmx {
namespace {

// Symmetric q × q product XᵀY of n × q column-major blocks, as a row-major matrix.
std::vector<double> gram(const executor& host, int64_t n, int64_t q, const double* X, const double* Y) {
  std::vector<double> g(q * q);
  dense_gemm(host, true, false, q, q, n, 1.0, X, n, Y, n, 0.0, g.data(), q);
  for (int64_t a = 0; a < q; ++a)  // symmetrise the rounding (column-major = transposed row-major)
    for (int64_t b = 0; b < a; ++b) g[a * q + b] = g[b * q + a] = 0.5 * (g[a * q + b] + g[b * q + a]);
  return g;
}

class cholesky_evaluator final : public h2_evaluator {
 public:
  cholesky_evaluator(std::shared_ptr<const shifted_operand> G, int64_t q, const double* A)
      : n_(G->n()), q_(q), host_(G->exec().host()), G_(std::move(G)), A_(A, A + n_ * q) {}

  int64_t n() const override { return n_; }
  int64_t q() const override { return q_; }
  std::string name() const override { return "cholesky"; }
  const executor& host() const override { return host_; }

  h2_evaluation evaluate(double h2, h2_detail detail) const override {
    h2_evaluation e;
    e.h2 = h2;
    e.detail = detail;
    if (detail == h2_detail::derivatives) {
      // One factorisation with [I A] on the right: H⁻¹ explicitly, for tr H⁻¹ and tr H⁻².
      std::vector<double> B(n_ * (n_ + q_), 0.0);
      for (int64_t i = 0; i < n_; ++i) B[i * n_ + i] = 1.0;
      std::copy(A_.begin(), A_.end(), B.begin() + n_ * n_);
      e.logdet_H = factor_solve(h2, n_ + q_, B.data());
      const double* Hi = B.data();
      const double* S1 = B.data() + n_ * n_;
      std::vector<double> S2(n_ * q_);
      dense_gemm(host_, false, false, n_, q_, n_, 1.0, Hi, n_, S1, n_, 0.0,
                  S2.data(), n_);
      e.gram[0] = gram(host_, n_, q_, A_.data(), S1);
      e.gram[1] = gram(host_, n_, q_, S1, S1);
      e.gram[2] = gram(host_, n_, q_, S1, S2.data());
      long double t1 = 0, t2 = 0;
      for (int64_t i = 0; i < n_; ++i) t1 += Hi[i * n_ + i];
      for (int64_t i = 0; i < n_ * n_; ++i) t2 += static_cast<long double>(Hi[i]) * Hi[i];
      e.trace_Hinv = static_cast<double>(t1);
      e.trace_Hinv2 = static_cast<double>(t2);  // ‖H⁻¹‖²_F = tr H⁻² (H⁻¹ symmetric)
      return e;
    }
    std::vector<double> S1(A_);
    e.logdet_H = factor_solve(h2, q_, S1.data());
    e.gram[0] = gram(host_, n_, q_, A_.data(), S1.data());
    e.gram[1] = gram(host_, n_, q_, S1.data(), S1.data());
    if (detail == h2_detail::information) {
      // Aᵀ H⁻³ A = S1ᵀ H⁻¹ S1: a second solve at the same shift (cuda keeps the factor; cpu refactorises).
      std::vector<double> S2(S1);
      factor_solve(h2, q_, S2.data());
      e.gram[2] = gram(host_, n_, q_, S1.data(), S2.data());
    }
    return e;
  }

  void solve(double h2, int64_t m, double* B, int64_t ldb) const override {
    try {
      shifted_cholesky_solve(*G_, h2, 1.0 - h2, m, B, ldb);
    } catch (const numeric_error& err) {
      throw not_pd(h2, err);
    }
  }

 private:
  int64_t n_, q_;
  executor host_;
  std::shared_ptr<const shifted_operand> G_;  // G itself (cpu) or its device-resident copy (cuda)
  std::vector<double> A_;

  double factor_solve(double h2, int64_t m, double* B) const {
    try {
      return shifted_cholesky_solve(*G_, h2, 1.0 - h2, m, B, n_);
    } catch (const numeric_error& err) {
      throw not_pd(h2, err);
    }
  }

  static numeric_error not_pd(double h2, const numeric_error& err) {
    return numeric_error("h²G + (1−h²)I is not positive definite at h² = " + std::to_string(h2) +
                         " (G has an eigenvalue below −(1−h²)/h²): " + err.what());
  }
};

}  // namespace

std::unique_ptr<h2_evaluator> make_cholesky_evaluator(const executor& exec, int64_t n,
                                                      const double* G, int64_t q, const double* A) {
  return make_cholesky_evaluator(std::make_shared<const shifted_operand>(exec, n, G, n), q, A);
}

std::unique_ptr<h2_evaluator> make_cholesky_evaluator(std::shared_ptr<const shifted_operand> G, int64_t q,
                                                      const double* A) {
  return std::make_unique<cholesky_evaluator>(std::move(G), q, A);
}

}  // namespace pmx
