// Op: GEMMA's exact mixed-model fit of many variants (`gemma -lmm 1`): for each variant x = Uᵀz,
// already rotated into the eigenbasis of K = U diag(d) Uᵀ, the λ = σg²/σe² that maximises the
// restricted likelihood of y given [W | x] (GEMMA's grid, Brent and Newton search), and the Wald
// test of x at that λ.
//
// The operand holds what every variant shares: the eigenvalues and the rotated covariates and
// phenotype, with the null model's REML fit. On cpu (and reference, the same code on one thread)
// the variants are fitted in parallel on the host, with the [W | y] sums of the grid points shared
// by all of them; on cuda one thread block fits a variant, reading x where the rotation left it in
// device memory, and only the results come back (at most max_device_columns fixed-effect columns
// with x and y; more fall back to the host).
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "panoramix/executor.hpp"

namespace pmx {

enum class lmm_fit_status : uint8_t {
  not_tested,                 ///< the caller asked for no test (a constant variant)
  tested,
  collinear_with_covariates,  ///< r² of x on W above 0.9999 (GEMMA's -r2), unweighted
  lambda_not_found,           ///< a root search left (l_min, l_max) or stalled (GEMMA's NA)
};

struct lmm_variant_fit {
  static constexpr double na = std::numeric_limits<double>::quiet_NaN();
  double lambda = na, logl = na, beta = na, se = na, p = na;  ///< NaN unless tested
  lmm_fit_status status = lmm_fit_status::not_tested;
};

/// GEMMA's λ search range and grid: dL/dλ at regions + 1 log-spaced points of [l_min, l_max].
struct lmm_search_range {
  double l_min = 1e-5, l_max = 1e5;
  int regions = 10;
};

/// The null model [W | y] at its REML λ: λ, log L_R, and yᵀPy (σe² = yᵀPy/(n − c)).
struct lmm_null_fit {
  double lambda = 0, logl = 0, P_yy = 0;
};

class lmm_search_operand {
 public:
  struct device_copy;  ///< defined by the CUDA backend; opaque here
  static constexpr int max_device_columns = 16;  ///< c + 2 (W, x, y) on the device

  /// n analysed samples; d their eigenvalues; Wy = Uᵀ[W | y] (n × (c + 1), column-major: the c
  /// fixed-effect columns, the intercept among them, then y). Host memory, copied. Fits the null
  /// model (numeric_error when its search finds no λ); on cuda uploads d and Wy once.
  lmm_search_operand(const executor& exec, int64_t n, int c, const double* d, const double* Wy,
                     const lmm_search_range& range = {});
  ~lmm_search_operand();
  lmm_search_operand(lmm_search_operand&&) noexcept;
  lmm_search_operand& operator=(lmm_search_operand&&) noexcept;

  const executor& exec() const { return exec_; }
  int64_t n() const { return n_; }
  int c() const { return c_; }
  const std::vector<double>& d() const { return d_; }
  const std::vector<double>& Wy() const { return Wy_; }
  const lmm_search_range& range() const { return range_; }
  const std::vector<double>& grid() const { return grid_; }  ///< the range's regions + 1 points
  const lmm_null_fit& null() const { return null_; }
  device_copy* device() const { return device_.get(); }

 private:
  struct device_copy_deleter {
    void operator()(device_copy* d) const;
  };
  executor exec_;
  int64_t n_;
  int c_;
  std::vector<double> d_, Wy_, grid_;
  lmm_search_range range_;
  lmm_null_fit null_;
  std::unique_ptr<device_copy, device_copy_deleter> device_;
};

/// Fits `count` variants: column j of Xt (n values, leading dimension ldx ≥ n) is x_j = Uᵀz_j, z_j
/// the variant's dosages centred by any constant (the intercept absorbs it). Xt is host memory, or
/// device memory on a cuda executor (where the rotation leaves it; host memory is uploaded).
/// test[j] = 0 leaves out[j] not_tested. fixed_lambda: NaN to search each variant's λ; a value to
/// test every variant at it (GEMMA-style null-model λ, EMMAX). out: host memory, count entries.
void lmm_fit_variants(const lmm_search_operand& model, int64_t count, const double* Xt, int64_t ldx,
                      const uint8_t* test, double fixed_lambda, lmm_variant_fit* out);

}  // namespace pmx
