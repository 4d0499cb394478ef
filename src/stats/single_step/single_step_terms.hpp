// Internal pieces of the single-step solver (src/stats/single_step/*.cpp): the records part of
// the mixed model equations (iteration on data) and the genetic part of each model (H⁻¹ or the
// ssSNPBLUP Σ⁻¹ applied to a block of t columns).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "panoramix/breeding_records.hpp"
#include "panoramix/error.hpp"
#include "panoramix/executor.hpp"
#include "panoramix/genotyped_a_inverse.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/ops/record_products.hpp"
#include "panoramix/ops/sparse_product.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/single_step.hpp"

namespace pmx::detail {

/// XᵀR⁻¹X, XᵀR⁻¹W, WᵀR⁻¹W and the right-hand side from the records, never formed as matrices
/// except the fixed-effects block when asked: each product is one pass over the records
/// ("iteration on data"): e = X_r β + a_animal(r), q = R_r⁻¹ e (observed traits only), then
/// y_β += X_rᵀ q and y_animal(r) += q.
class record_equations {
 public:
  record_equations(const pedigree& ped, const breeding_records& rec, const variance_components& vc,
                   int threads);
  int traits() const { return t_; }
  int64_t fixed_count() const { return p_; }
  /// The records as the record_products op takes them (valid while this object lives): for an
  /// operand on another executor.
  record_design_view design() const;
  /// The records' operand on the host (the constructor's threads): record_multiply with it
  /// overwrites y_β (p) and y_a (n × t) with the records part of C·[β; a].
  const record_operand& operand() const { return *host_op_; }
  /// Right-hand side XᵀR⁻¹y (p) and WᵀR⁻¹y (n × t).
  void rhs(double* b_beta, double* b_a) const;
  /// Dense XᵀR⁻¹X (p × p, row-major).
  std::vector<double> fixed_block() const;
  /// The diagonal of XᵀR⁻¹X (p values), without the p × p matrix: with many fixed effects (herds ×
  /// traits at a national size, p ≈ 80,000) the dense block is 51 GB.
  std::vector<double> fixed_diagonal() const;
  /// Per-animal t × t blocks of WᵀR⁻¹W (n · t² values; zeros for animals without records).
  std::vector<double> animal_blocks() const;
  /// Estimates on the input scale from the solution β (internal, centred covariates).
  std::vector<fixed_effect_estimate> estimates(const double* beta) const;
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  int t_ = 1;
  int64_t n_ = 0, p_ = 0, records_ = 0;
  int threads_ = 1;
  std::vector<int64_t> animal_;     // per record (records sorted by animal)
  std::vector<uint32_t> pattern_;   // per record: bit k set = trait k observed
  std::vector<double> y_;           // records × t (0 where missing)
  std::vector<int32_t> level_;      // records × classes: level index
  std::vector<double> cov_;         // records × covariates (raw)
  int classes_ = 0, covariates_ = 0;
  std::vector<int64_t> intercept_col_;           // per trait
  std::vector<std::vector<int64_t>> class_col_;  // [class][trait · levels + level] → column or −1
  std::vector<int32_t> reference_;               // [class · t + trait]: reference level
  std::vector<int64_t> cov_col_;                 // [covariate · t + trait]
  std::vector<double> cov_mean_;                 // [covariate · t + trait]
  std::vector<double> rinv_;                     // per pattern index: t × t (zeros off pattern)
  std::vector<int32_t> pattern_index_;           // per record → rinv_ block
  std::vector<int64_t> slot_start_;              // the design by slots r·t + k (record_design_view)
  std::vector<int32_t> design_col_;
  std::vector<double> design_val_;
  std::unique_ptr<record_operand> host_op_;
  std::vector<std::string> class_names_, cov_names_, trait_names_;
  std::vector<std::vector<std::string>> level_names_;
  std::vector<std::string> notes_;
  template <class F>
  void for_record_columns(int64_t r, int k, F&& f) const;
};

/// The genetic part: Y = Σ⁻¹ V for V with rows = animals (pedigree order) then any extra unknowns
/// (ssSNPBLUP's SNP effects), t columns row-major. The solver multiplies by G0⁻¹ before the call.
class genetic_term {
 public:
  virtual ~genetic_term() = default;
  virtual int64_t extra_rows() const { return 0; }
  /// Y = Σ⁻¹ V (overwrites Y; (n + extra) × t). Host memory, or device memory when
  /// takes_device_vectors().
  virtual void apply(const double* V, double* Y) = 0;
  /// True when apply() can take V and Y in device memory, every product of the term resident on
  /// the GPU (then the solver keeps PCG's vectors there).
  virtual bool takes_device_vectors() const { return false; }
  /// Diagonal of Σ⁻¹, or a positive approximation of it, for the preconditioner (n + extra).
  virtual std::vector<double> diagonal() const = 0;
  double genotype_seconds = 0, pedigree_seconds = 0;  ///< accumulated by apply()
  std::vector<std::pair<std::string, double>> setup_seconds;
  std::vector<std::string> notes;
};

/// Y = A⁻¹ V for the n × t animal block, once per PCG iteration: on the CPU's threads, or after
/// to_device() on the GPU (A⁻¹ resident, 12 bytes a nonzero; the solver's V and Y are page-locked,
/// so they cross the bus by DMA): 5 M animals took ~20 ms on 16 cores, the critical path of a GPU
/// single-step iteration.
class ainv_product {
 public:
  explicit ainv_product(const sparse_symmetric_operator& op) : op_(op) {}
  /// Makes A⁻¹ resident on a cuda executor's device; returns a line for the solver's notes (what
  /// was done, or why the products stay on the CPU: the device budget, or PMX_AINV_GPU=0, which
  /// keeps them there for comparisons).
  std::string to_device(const executor& exec) {
    if (!exec.tuning().ainv_on_device) return "A^-1 products on the CPU (PMX_AINV_GPU=0)";
    try {
      device_ = std::make_unique<sparse_operand>(exec, op_.csr());
      return "A^-1 products on the GPU (" + std::to_string(op_.nonzeros()) + " nonzeros resident)";
    } catch (const unsupported_error& e) {
      return std::string("A^-1 products on the CPU: ") + e.what();
    }
  }
  bool on_device() const { return device_ != nullptr; }
  /// `threads`: the CPU's, when the product runs there.
  void apply(int64_t t, const double* V, double* Y, int threads) const {
    if (device_) sparse_multiply(*device_, t, V, Y);
    else op_.apply(t, V, Y, threads);
  }

 private:
  const sparse_symmetric_operator& op_;
  std::unique_ptr<sparse_operand> device_;
};

/// What the genomic models share: genotypes, centring, A⁻¹ as an operator, the pedigree.
struct genomic_inputs {
  const pedigree* ped = nullptr;
  const std::vector<double>* F = nullptr;
  const sparse_symmetric* ainv = nullptr;
  const ainv_product* ainv_op = nullptr;
  const single_step_genotypes* geno = nullptr;
  std::vector<double> p, sum_z2;  ///< centring and Σ_i z_ij² per variant
  double two_sum_pq = 0;
  int t = 1;
  int threads = 1;
};

/// Wall time of a piece of work (timing fields, logs).
class stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// What the SNP-based models (sssnpblup, ssgtablup) set up first: the genotype operand (uploaded
/// once on cuda) and the A_gg⁻¹ operator, each timed into term.setup_seconds, the factor noted.
/// Throws input_error unless 0 < w < 1 (`model` names the model in the message).
struct snp_model_operands {
  std::unique_ptr<gemm_operand> genotypes;
  std::unique_ptr<genotyped_a_inverse> agg_inv;
};
snp_model_operands make_snp_model_operands(const char* model, const executor& exec,
                                           const genomic_inputs& in, genetic_term& term);

std::unique_ptr<genetic_term> make_pblup_term(const sparse_symmetric& ainv, const ainv_product& op, int t,
                                              int threads);
std::unique_ptr<genetic_term> make_ssgblup_term(const executor& exec, const genomic_inputs& in);
std::unique_ptr<genetic_term> make_sssnpblup_term(const executor& exec, const genomic_inputs& in);
std::unique_ptr<genetic_term> make_ssgtablup_term(const executor& exec, const genomic_inputs& in);

/// Threads worth waking for `work` elementary steps (about one per 2 M): a parallel region costs
/// microseconds on an idle machine but up to a scheduler time slice (milliseconds) when the cores
/// are shared, which is more than a small product takes on one core.
inline int threads_for(double work, int threads) {
  return static_cast<int>(std::clamp(work / double(1 << 21), 1.0, static_cast<double>(std::max(threads, 1))));
}

/// The executor of the genotype products of an n × k matrix: a device one as given, a host one
/// with threads_for(n·k) threads (a 500 × 7,250 product takes ~1 ms on one core; with two
/// threads on loaded cores it took ~10 ms).
inline executor genotype_executor(const executor& exec, int64_t n, int64_t k) {
  if (exec.on_device()) return exec;
  return exec.with_threads(threads_for(static_cast<double>(n) * static_cast<double>(k), exec.threads()));
}


}  // namespace pmx::detail
