// Genomic BLUP: y = Xβ + Zg + e over the phenotyped ("fitted") samples, g ~ N(0, σ²_g G) over all
// samples of G, e ~ N(0, σ²_e I). Variance components by REML (reml.hpp) or from a given h².
//
//   β̂    = (XᵀV⁻¹X)⁻¹ XᵀV⁻¹ y,                    V = σ²_g G_ff + σ²_e I = σ² H
//   ĝ_all = σ²_g G_{all,f} V⁻¹ (y − Xβ̂) = h² G_{all,f} H⁻¹ (y − Xβ̂)
//   PEV_i = Var(g_i − ĝ_i) = σ²_g [G_ii − h² (G_{all,f} P_H G_{f,all})_ii],
//           P_H = H⁻¹ − H⁻¹X (XᵀH⁻¹X)⁻¹ XᵀH⁻¹,
// which equals σ²_e times the diagonal of the g-block of the inverse of Henderson's mixed-model
// coefficient matrix [[XᵀX, XᵀZ], [ZᵀX, ZᵀZ + G⁻¹σ²_e/σ²_g]] (when G is invertible).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/executor.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "panoramix/reml.hpp"

namespace pmx {

enum class h2_evaluator_kind { eigen, cholesky };

struct gblup_data {
  int64_t n = 0;                ///< samples of G (all get predictions)
  const double* G = nullptr;    ///< n × n symmetric (row- or column-major)
  std::vector<int64_t> fitted;  ///< indices (into G) of the samples with a phenotype and covariates
  std::vector<double> y;        ///< phenotypes of the fitted samples
  /// Covariate columns over the fitted samples; an intercept is always added first.
  std::vector<std::vector<double>> covariates;
  std::vector<std::string> covariate_names;
  /// Optional: G (all n samples) already prepared as an operand on the executor (cuda: resident on
  /// the device, e.g. after its PCs were computed). Used for ĝ = h² G_{all,f} α and, when every
  /// sample is fitted, by the Cholesky evaluator, so G crosses the bus once. Empty: fit_gblup
  /// prepares what it needs from G.
  std::shared_ptr<const shifted_operand> resident;
};

struct gblup_options {
  std::optional<double> h2;  ///< given h²; empty = estimate by REML
  h2_evaluator_kind evaluator = h2_evaluator_kind::eigen;
  reml_options reml;
  bool pev = true;
};

struct gblup_result {
  reml_result vc;
  std::vector<std::string> fixed_names;  ///< "intercept", then the covariates
  std::vector<double> beta, se_beta;
  std::vector<double> gebv, pev;         ///< one per sample of G
  std::string evaluator;
  /// Wall seconds per stage of the fit, in order (for logs and benchmarks).
  std::vector<std::pair<std::string, double>> stage_seconds;
};

/// Fits the model; throws input_error for too few fitted samples and numeric_error for a
/// non-positive-definite H or collinear fixed effects.
gblup_result fit_gblup(const executor& exec, const gblup_data& d, const gblup_options& opt);

}  // namespace pmx
