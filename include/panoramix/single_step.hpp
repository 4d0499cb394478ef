// Pedigree BLUP and single-step genomic evaluations (univariate or multi-trait animal models)
// solved by PCG: pblup (H = A), ssGBLUP with explicit dense G̃⁻¹ (Legarra et al. 2009, Christensen
// & Lund 2010), ssSNPBLUP (Liu et al. 2014, thesis eq. 2.16) and ssGTABLUP (Woodbury form of G̃⁻¹,
// Mäntysaari et al. 2017). The genomic models give the same breeding values (they are one model).
//
// Model, t traits, animal-major unknowns (animal i, trait k at i·t + k):
//   y = Xβ + W g + e,  Var(g) = H ⊗ G0,  Var(e) = ⊕_records R0[o,o]  (o: the record's observed traits)
// Mixed model equations
//   [XᵀR⁻¹X   XᵀR⁻¹W           ] [β]   [XᵀR⁻¹y]
//   [WᵀR⁻¹X   WᵀR⁻¹W + H⁻¹⊗G0⁻¹] [g] = [WᵀR⁻¹y]
// with H⁻¹ = A⁻¹ + [0 0; 0 G̃⁻¹ − A_gg⁻¹], G̃ = (1−w)G + wA_gg, G = ZZᵀ/(2Σp(1−p)) (VanRaden 1),
// Z = genotypes centred by p (missing calls 0). The model files (src/stats/single_step/*.cpp) write
// out how each model applies H⁻¹.
//
// Fixed effects, per trait: an intercept, class effects (the first level, in sorted order, with a
// record of the trait is the reference, set to 0; levels without a record of the trait are
// dropped, noted) and covariate regressions (centred internally per trait; reported on the input
// scale, the intercept adjusted accordingly).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "panoramix/breeding_records.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/genotype_view.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/progress.hpp"
#include "panoramix/single_step_pcg.hpp"

namespace pmx {

enum class single_step_model { pblup, ssgblup, sssnpblup, ssgtablup };

/// "pblup", "ssgblup", "sssnpblup", "ssgtablup"; parse throws input_error for other names.
std::string model_name(single_step_model m);
single_step_model parse_single_step_model(const std::string& name);

/// Genotypes of the genotyped animals (not needed by pblup).
struct single_step_genotypes {
  variant_major_view genotypes;   ///< n_g samples × k variants, 2-bit (missing calls allowed)
  std::vector<int64_t> animals;   ///< pedigree index of each sample (distinct)
  /// Centring: frequency of the counted allele per variant (k entries), or empty = observed among
  /// the genotyped animals (over called genotypes; a variant without calls gets p = 0 and adds
  /// nothing to Z or to 2Σp(1−p)).
  std::vector<double> p;
  double w = 0.2;                 ///< share of residual polygenic variance, 0 < w < 1 (ssgblup: 0 ≤ w < 1)
};

struct single_step_options {
  single_step_model model = single_step_model::pblup;
  double tol = 1e-12;             ///< stop when ‖r‖²/‖b‖² < tol (BLUPF90's criterion) ...
  /// ... or, when > 0, when the estimated relative error of the solutions is ≤ solution_tol
  /// instead (pcg_result::estimated_error: the number that says how many digits are right).
  double solution_tol = 0;
  int64_t max_iterations = 10000;
  /// Fixed effects up to this count get one dense block (their exact inverse) in the
  /// preconditioner, and a rank check; beyond, a diagonal.
  int64_t dense_fixed_limit = 2000;
  /// Called after each PCG iteration (0: the start) with its history entry and the cumulative
  /// seconds in the genotype products and in the pedigree terms so far (e.g. to write progress).
  std::function<void(const pcg_iteration&, double genotype_seconds, double pedigree_seconds)> on_iteration;
};

struct fixed_effect_estimate {
  std::string effect;  ///< "intercept", a class name or a covariate name
  std::string level;   ///< class level ("" for intercept and covariates)
  int trait = 0;       ///< 0-based
  double value = 0;
  bool reference = false;  ///< class level fixed at 0 (the constraint)
};

struct single_step_solution {
  int t = 1;
  std::vector<double> ebv;  ///< ped.size() × t, animal-major, in the pedigree's (renumbered) order
  std::vector<double> snp;  ///< ssSNPBLUP: k × t SNP effects û, variant-major; else empty
  std::vector<double> p;    ///< centring frequencies used (genomic models)
  double two_sum_pq = 0;    ///< 2Σp(1−p)
  std::vector<fixed_effect_estimate> fixed;
  pcg_result pcg;
  int64_t unknowns = 0;
  /// Set-up stages and their seconds, and per-iteration totals split by kind of work.
  std::vector<std::pair<std::string, double>> setup_seconds;
  double genotype_seconds = 0, pedigree_seconds = 0, other_seconds = 0;  ///< summed over products
  int64_t products = 0;  ///< MME products made (iterations + 2)
  /// After each product (product k ends PCG iteration k; k = 0 the start, the last one the final
  /// residual check): cumulative seconds in the genotype products and in the pedigree terms
  /// (A⁻¹, A_gg⁻¹), on the same clock as pcg.history[k].seconds.
  std::vector<double> genotype_seconds_after, pedigree_seconds_after;
  std::vector<std::string> notes;  ///< for the log (dropped levels, set-up facts)
  /// True when every PCG iteration ran on the GPU with its vectors resident (the device route:
  /// one step after the other, so the parts above add up to the iteration).
  bool pcg_on_device = false;
};

/// Builds the mixed model equations of `records` on `ped` with G0, R0 from `vc` and solves them.
/// Every record's animal must be in `ped` (input_error naming the ID and line otherwise).
/// Genomic models need `genotypes` (the ops run on `exec`; pedigree and sparse algebra on the CPU
/// with exec.threads()). Throws input_error for inconsistent inputs (confounded fixed effects,
/// w out of range), numeric_error when a matrix that must be positive definite is not.
single_step_solution solve_single_step(const executor& exec, const pedigree& ped,
                                       const breeding_records& records,
                                       const variance_components& vc,
                                       const single_step_genotypes* genotypes,
                                       const single_step_options& opt,
                                       progress_sink* progress = nullptr);

/// Centring frequencies and per-variant Σ_i z_ij² of genotypes (n_g × k): p_j = observed A1
/// frequency over called genotypes (0 where no call); z = x − 2p, 0 where missing.
void genotype_moments(const variant_major_view& g, const std::vector<double>* given_p,
                      std::vector<double>& p, std::vector<double>& sum_z2, int threads);

/// Dense VanRaden G = ZZᵀ/(2Σp(1−p)) (n_g × n_g, row-major) centred by the given `p`: compute_grm's
/// pass (grm.hpp, grm_method::vanraden) on `exec`, for ssGBLUP and tests, O(n_g² k) work, O(n_g²)
/// memory.
std::vector<double> vanraden_grm(const executor& exec, const variant_major_view& g,
                                 const std::vector<double>& p);

/// Dense pedigree relationships among `subset` (indices into ped), |subset|² row-major, by
/// Colleau's (2002) indirect method, A e_s = T D Tᵀ e_s: two linear passes over the pedigree per
/// column, O(n·|subset|) time, O(|subset|² + n·threads) memory.
std::vector<double> pedigree_relationships_among(const pedigree& ped, const std::vector<double>& F,
                                                 const std::vector<int64_t>& subset, int threads);

}  // namespace pmx
