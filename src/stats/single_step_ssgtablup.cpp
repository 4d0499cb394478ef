// ssGTABLUP (Mäntysaari et al. 2017; thesis §2.2 after eq. 2.16): ssGBLUP's H⁻¹ with G̃⁻¹ in
// Woodbury form, never forming G or G̃. With G̃ = wA_gg + (1−w)/c · ZZᵀ, c = 2Σp(1−p):
//   G̃⁻¹ = (1/w)A_gg⁻¹ − (1/w²) A_gg⁻¹ Z C⁻¹ Zᵀ A_gg⁻¹,   C = (1/w) ZᵀA_gg⁻¹Z + c/(1−w) · I
// (C is k_snp × k_snp, the Schur complement of ssSNPBLUP's SNP block), so
//   H⁻¹ = A⁻¹ + [0 0; 0 (1/w − 1)A_gg⁻¹ − (1/w²) A_gg⁻¹ Z C⁻¹ Zᵀ A_gg⁻¹].
// Set-up: C by blocks of unit vectors E (ZE, A_gg⁻¹ on it, Zᵀ on that), then its Cholesky factor
// (dense_linalg; cpu: the factor, solved against per product; cuda: C⁻¹ formed and kept on the
// device): O(k_snp · (n_g k_snp + A_gg⁻¹ solve)) + O(k_snp³).
// Per iteration, with V_g the genotyped rows (× G0⁻¹): S1 = A_gg⁻¹V_g, W = C⁻¹(ZᵀS1),
// S2 = A_gg⁻¹(ZW), Y = A⁻¹V, Y_g += (1/w − 1)S1 − S2/w²: one Z·Λ and one Zᵀ·Λ̃ (l = t), two
// A_gg⁻¹ products, one dense k_snp² · t step (cuda: DGEMM with the resident C⁻¹; cpu: two
// triangular solves with the factor).
// Preconditioner diagonal: A⁻¹_ii (the genomic correction is left out; PCG needs only an SPD M).
#include <algorithm>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/ops/shifted_solve.hpp"
#include "single_step_terms.hpp"

namespace pmx::detail {
namespace {

class ssgtablup_term final : public genetic_term {
 public:
  ssgtablup_term(const executor& exec, const genomic_inputs& in)
      : host_(backend::cpu, in.threads), in_(in), w_(in.geno->w), c_(in.two_sum_pq),
        n_(in.ped->size()), kg_(static_cast<int64_t>(in.geno->animals.size())),
        ks_(in.geno->genotypes.n_variants), t_(in.t), op_(exec, in.geno->genotypes), centring_{in.p, {}} {
    if (!(w_ > 0 && w_ < 1)) throw input_error("ssgtablup needs 0 < w < 1 (w = " + std::to_string(w_) + ")");
    stopwatch sw;
    agg_inv_ = std::make_unique<genotyped_a_inverse>(*in.ped, *in.F, in.geno->animals, in.threads);
    setup_seconds.emplace_back("A_gg^-1 operator (sparse Cholesky of A^nn)", sw.seconds());
    // ---- C = (1/w) ZᵀA_gg⁻¹Z + c/(1−w) I, column blocks of b unit vectors
    sw = stopwatch();
    const int64_t b = std::min<int64_t>(ks_, 256);
    std::vector<double> E(ks_ * b), Zb(kg_ * b), Sb(kg_ * b), Wb(ks_ * b), C(ks_ * ks_);
    double genotype = 0, pedigree = 0;
    for (int64_t first = 0; first < ks_; first += b) {
      const int64_t m = std::min(b, ks_ - first);
      std::fill(E.begin(), E.end(), 0.0);
      for (int64_t c = 0; c < m; ++c) E[(first + c) * m + c] = 1.0;
      stopwatch part;
      gemm(op_, centring_, m, E.data(), m, 0.0, Zb.data(), m);
      genotype += part.seconds();
      part = stopwatch();
      agg_inv_->apply(m, Zb.data(), Sb.data());
      pedigree += part.seconds();
      part = stopwatch();
      gemm_transposed(op_, centring_, m, Sb.data(), m, 0.0, Wb.data(), m);
      genotype += part.seconds();
      for (int64_t j = 0; j < ks_; ++j)
        for (int64_t c = 0; c < m; ++c) C[j * ks_ + first + c] = Wb[j * m + c] / w_;
    }
    for (int64_t j = 0; j < ks_; ++j)
      for (int64_t i = 0; i < j; ++i)
        C[i * ks_ + j] = C[j * ks_ + i] = 0.5 * (C[i * ks_ + j] + C[j * ks_ + i]);
    for (int64_t j = 0; j < ks_; ++j) C[j * ks_ + j] += c_ / (1 - w_);
    setup_seconds.emplace_back("C = Z'A_gg^-1 Z/w + c/(1-w) I: genotype products", genotype);
    setup_seconds.emplace_back("C = Z'A_gg^-1 Z/w + c/(1-w) I: A_gg^-1 products", pedigree);
    sw = stopwatch();
    try {
      if (exec.kind() == backend::cuda) {
        // C⁻¹ formed on the GPU and kept there as a resident operand: each product is a device
        // DGEMM with only the k × t blocks crossing the bus.
        Cinv_.assign(ks_ * ks_, 0.0);
        for (int64_t j = 0; j < ks_; ++j) Cinv_[j * ks_ + j] = 1.0;
        cholesky_solve(exec, ks_, C.data(), ks_, ks_, Cinv_.data(), ks_);
        Cinv_op_ = std::make_unique<shifted_operand>(exec, ks_, Cinv_.data(), ks_);
        std::vector<double>().swap(Cinv_);
      } else {
        // cpu: the factor only (k³/3 flops, not the 7k³/3 of an explicit inverse); the cpu
        // backend leaves L in the lower triangle (column-major), used by two triangular solves
        // per product.
        double none = 0;
        cholesky_solve(host_, ks_, C.data(), ks_, 0, &none, ks_);
        L_ = std::move(C);
      }
    } catch (const numeric_error& e) {
      throw numeric_error(std::string("ssgtablup: C = Z'A_gg^-1 Z/w + c/(1-w) I is not positive definite (") +
                          e.what() + ")");
    }
    setup_seconds.emplace_back(std::string(exec.kind() == backend::cuda ? "C^-1" : "Cholesky factor of C") +
                                   " (dense, " + std::to_string(ks_) + " x " + std::to_string(ks_) + ")",
                               sw.seconds());
    Vg_.resize(kg_ * t_);
    S1_.resize(kg_ * t_);
    S2_.resize(kg_ * t_);
    P_.resize(kg_ * t_);
    W1_.resize(ks_ * t_);
    W2_.resize(ks_ * t_);
    Wc_.resize(ks_ * t_);
    Wc2_.resize(ks_ * t_);
  }
  void apply(const double* V, double* Y) override {
    const int t = t_;
    const auto& g = in_.geno->animals;
    stopwatch sw;
    in_.ainv_op->apply(t, V, Y, in_.threads);
    for (int64_t i = 0; i < kg_; ++i) std::copy(V + g[i] * t, V + (g[i] + 1) * t, Vg_.begin() + i * t);
    agg_inv_->apply(t, Vg_.data(), S1_.data());
    pedigree_seconds += sw.seconds();
    sw = stopwatch();
    gemm_transposed(op_, centring_, t, S1_.data(), t, 0.0, W1_.data(), t);
    if (Cinv_op_) {
      // W2 = C⁻¹ W1 needs column-major k × t blocks; W1/W2 are row-major k × t: transpose around.
      for (int64_t j = 0; j < ks_; ++j)
        for (int c = 0; c < t; ++c) Wc_[c * ks_ + j] = W1_[j * t + c];
      shifted_multiply(*Cinv_op_, 1.0, 0.0, t, Wc_.data(), ks_, Wc2_.data(), ks_);
      for (int64_t j = 0; j < ks_; ++j)
        for (int c = 0; c < t; ++c) W2_[j * t + c] = Wc2_[c * ks_ + j];
    } else {
      cholesky_solve_rows(W1_.data(), W2_.data());
    }
    gemm(op_, centring_, t, W2_.data(), t, 0.0, P_.data(), t);
    genotype_seconds += sw.seconds();
    sw = stopwatch();
    agg_inv_->apply(t, P_.data(), S2_.data());
    const double a = 1 / w_ - 1, b = 1 / (w_ * w_);
    for (int64_t i = 0; i < kg_; ++i)
      for (int c = 0; c < t; ++c) Y[g[i] * t + c] += a * S1_[i * t + c] - b * S2_[i * t + c];
    pedigree_seconds += sw.seconds();
  }
  // W2 = C⁻¹ W1 = L⁻ᵀ L⁻¹ W1 (W row-major k × t; L(i, j) at L_[i + j·k]): both sweeps read L
  // by columns, contiguously.
  void cholesky_solve_rows(const double* W1, double* W2) const {
    const int t = t_;
    const double* L = L_.data();
    std::copy(W1, W1 + ks_ * t, W2);
    for (int64_t j = 0; j < ks_; ++j) {  // L y = w, column sweep
      const double* col = L + j * ks_;
      double* yj = W2 + j * t;
      for (int c = 0; c < t; ++c) yj[c] /= col[j];
      for (int64_t i = j + 1; i < ks_; ++i) {
        const double l = col[i];
        double* yi = W2 + i * t;
        for (int c = 0; c < t; ++c) yi[c] -= l * yj[c];
      }
    }
    for (int64_t i = ks_ - 1; i >= 0; --i) {  // Lᵀ x = y: x_i = (y_i − Σ_{j>i} L(j,i) x_j) / L(i,i)
      const double* col = L + i * ks_;
      double* xi = W2 + i * t;
      for (int64_t j = i + 1; j < ks_; ++j) {
        const double l = col[j];
        const double* xj = W2 + j * t;
        for (int c = 0; c < t; ++c) xi[c] -= l * xj[c];
      }
      for (int c = 0; c < t; ++c) xi[c] /= col[i];
    }
  }
  std::vector<double> diagonal() const override {
    const sparse_symmetric& A = *in_.ainv;
    std::vector<double> d(n_);
    for (int64_t i = 0; i < n_; ++i) d[i] = A.value[A.row_start[i + 1] - 1];
    return d;
  }

 private:
  executor host_;
  const genomic_inputs& in_;
  double w_, c_;
  int64_t n_, kg_, ks_;
  int t_;
  gemm_operand op_;
  gemm_centring centring_;
  std::unique_ptr<genotyped_a_inverse> agg_inv_;
  std::vector<double> Cinv_, L_, Vg_, S1_, S2_, P_, W1_, W2_, Wc_, Wc2_;
  std::unique_ptr<shifted_operand> Cinv_op_;
};

}  // namespace

std::unique_ptr<genetic_term> make_ssgtablup_term(const executor& exec, const genomic_inputs& in) {
  return std::make_unique<ssgtablup_term>(exec, in);
}

}  // namespace pmx::detail
