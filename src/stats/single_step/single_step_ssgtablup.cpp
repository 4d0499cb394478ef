// ssGTABLUP (Mäntysaari et al. 2017; thesis §2.2 after eq. 2.16): ssGBLUP's H⁻¹ with G̃⁻¹ in
// Woodbury form, never forming G or G̃. With G̃ = wA_gg + (1−w)/c · ZZᵀ, c = 2Σp(1−p):
//   G̃⁻¹ = (1/w)A_gg⁻¹ − (1/w²) A_gg⁻¹ Z C⁻¹ Zᵀ A_gg⁻¹,   C = (1/w) ZᵀA_gg⁻¹Z + c/(1−w) · I
// (C is k_snp × k_snp, the Schur complement of ssSNPBLUP's SNP block), so
//   H⁻¹ = A⁻¹ + [0 0; 0 (1/w − 1)A_gg⁻¹ − (1/w²) A_gg⁻¹ Z C⁻¹ Zᵀ A_gg⁻¹].
// Set-up: C from Z decoded to doubles (whole, or in panels of 256 variants), A_gg⁻¹ applied to
// it (or formed explicitly when n_g ≤ k_snp) and Zᵀ· by DGEMM (panels: the genotype product op),
// then its Cholesky factor (dense_linalg; cpu: the factor, solved against per product; cuda: C⁻¹
// formed and kept on the device): O(n_g k_snp² + k_snp · A_gg⁻¹ solve) + O(k_snp³).
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
      : host_(exec.host().with_threads(in.threads)), in_(in), w_(in.geno->w), c_(in.two_sum_pq),
        n_(in.ped->size()), kg_(static_cast<int64_t>(in.geno->animals.size())),
        ks_(in.geno->genotypes.n_variants), t_(in.t), centring_{in.p, {}} {
    auto operands = make_snp_model_operands("ssgtablup", exec, in, *this);
    op_ = std::move(operands.genotypes);
    agg_inv_ = std::move(operands.agg_inv);
    // ---- C = (1/w) ZᵀA_gg⁻¹Z + c/(1−w) I
    std::vector<double> C = build_c(in.threads);
    stopwatch sw;
    try {
      if (exec.on_device()) {
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
    setup_seconds.emplace_back(std::string(exec.on_device() ? "C^-1" : "Cholesky factor of C") +
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
    gemm_transposed(*op_, centring_, t, S1_.data(), t, 0.0, W1_.data(), t);
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
    gemm(*op_, centring_, t, W2_.data(), t, 0.0, P_.data(), t);
    genotype_seconds += sw.seconds();
    sw = stopwatch();
    agg_inv_->apply(t, P_.data(), S2_.data());
    const double a = 1 / w_ - 1, b = 1 / (w_ * w_);
    for (int64_t i = 0; i < kg_; ++i)
      for (int c = 0; c < t; ++c) Y[g[i] * t + c] += a * S1_[i * t + c] - b * S2_[i * t + c];
    pedigree_seconds += sw.seconds();
  }
  // W2 = C⁻¹ W1 = L⁻ᵀ L⁻¹ W1 (W row-major k × t; L(i, j) at L_[i + j·k]): both sweeps read L
  // by columns, contiguously (memory bound: the k²/2 doubles of L once per sweep). The column
  // count is a template parameter for the usual t ≤ 4 so the inner loops vectorise.
  void cholesky_solve_rows(const double* W1, double* W2) const {
    switch (t_) {
      case 1: return sweeps<1>(W1, W2, 1);
      case 2: return sweeps<2>(W1, W2, 2);
      case 3: return sweeps<3>(W1, W2, 3);
      case 4: return sweeps<4>(W1, W2, 4);
      default: return sweeps<0>(W1, W2, t_);
    }
  }
  // Blocks of 256 columns: the triangle of a block is solved on one thread, the rectangle below it
  // (forward: updates of later rows; backward: dot products with later unknowns) split over
  // threads by rows. Every sum runs in a fixed order, so results do not depend on threads.
  template <int T>
  void sweeps(const double* W1, double* W2, int t_run) const {
    constexpr int64_t B = 256;
    const int t = T > 0 ? T : t_run;
    const double* L = L_.data();
    const int64_t k = ks_;
    // Threads only for large C: each block is a parallel region, and at k = 7,250 two threads on
    // loaded cores took 4x longer than one (memory bound either way on this small a machine).
    const int nt = k >= 16384 ? in_.threads : 1;
    std::copy(W1, W1 + k * t, W2);
    for (int64_t j0 = 0; j0 < k; j0 += B) {  // L y = w
      const int64_t j1 = std::min(k, j0 + B);
      for (int64_t j = j0; j < j1; ++j) {
        const double* col = L + j * k;
        for (int c = 0; c < t; ++c) W2[j * t + c] /= col[j];
        for (int64_t i = j + 1; i < j1; ++i)
          for (int c = 0; c < t; ++c) W2[i * t + c] -= col[i] * W2[j * t + c];
      }
      const int64_t rows = k - j1, chunk = 2048;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && rows > chunk)
      for (int64_t r0 = j1; r0 < k; r0 += chunk) {
        const int64_t r1 = std::min(k, r0 + chunk);
        for (int64_t j = j0; j < j1; ++j) {
          const double* col = L + j * k;
          double yj[T > 0 ? T : 64];
          for (int c = 0; c < t; ++c) yj[c] = W2[j * t + c];
          for (int64_t i = r0; i < r1; ++i)
            for (int c = 0; c < t; ++c) W2[i * t + c] -= col[i] * yj[c];
        }
      }
    }
    const int64_t blocks = (k + B - 1) / B;
    std::vector<double> below(B * t);
    for (int64_t b = blocks - 1; b >= 0; --b) {  // Lᵀ x = y: x_i = (y_i − Σ_{j>i} L(j,i) x_j) / L(i,i)
      const int64_t i0 = b * B, i1 = std::min(k, i0 + B);
      // Σ_{j ≥ i1} L(j,i) x_j with four partial sums per column (one chain of dependent additions
      // would run at the adder's latency, not at memory speed).
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && k - i1 > 2048)
      for (int64_t i = i0; i < i1; ++i) {
        double s[4][T > 0 ? T : 64] = {};
        const double* l = L + i * k;
        const int64_t rest4 = i1 + (k - i1) / 4 * 4;
        for (int64_t j = i1; j < rest4; j += 4)
          for (int u = 0; u < 4; ++u)
            for (int c = 0; c < t; ++c) s[u][c] += l[j + u] * W2[(j + u) * t + c];
        for (int64_t j = rest4; j < k; ++j)
          for (int c = 0; c < t; ++c) s[0][c] += l[j] * W2[j * t + c];
        for (int c = 0; c < t; ++c) below[(i - i0) * t + c] = (s[0][c] + s[1][c]) + (s[2][c] + s[3][c]);
      }
      for (int64_t i = i1 - 1; i >= i0; --i) {
        const double* l = L + i * k;
        for (int c = 0; c < t; ++c) {
          double v = W2[i * t + c] - below[(i - i0) * t + c];
          for (int64_t j = i + 1; j < i1; ++j) v -= l[j] * W2[j * t + c];
          W2[i * t + c] = v / l[i];
        }
      }
    }
  }
  // Z[:, j0:j1) centred (x − 2p, 0 for missing) into out: element (i, j − j0) at
  // out[i·row_stride + (j − j0)·col_stride].
  void decode(int64_t j0, int64_t j1, double* out, int64_t row_stride, int64_t col_stride, int threads) const {
    const variant_major_view& g = in_.geno->genotypes;
#pragma omp parallel for num_threads(threads) schedule(static) if ((j1 - j0) * kg_ >= (1 << 20))
    for (int64_t j = j0; j < j1; ++j) {
      const double two_p = 2 * in_.p[j];
      const double z[4] = {dosage_of_code(0) - two_p, 0.0, dosage_of_code(2) - two_p, dosage_of_code(3) - two_p};
      const uint8_t* row = g.row(j);
      double* o = out + (j - j0) * col_stride;
      for (int64_t i = 0; i < kg_; ++i) o[i * row_stride] = z[(row[i >> 2] >> (2 * (i & 3))) & 3];
    }
  }
  // C = ZᵀA_gg⁻¹Z/w + c/(1−w) I (k_snp × k_snp, column-major = row-major, symmetric).
  //  - Z small enough to decode whole (n_g·k_snp ≤ dense_elements): S = A_gg⁻¹Z as one dense
  //    block, from the explicit A_gg⁻¹ (A_gg⁻¹ applied to the n_g unit vectors) when n_g ≤ k_snp,
  //    else A_gg⁻¹ applied to Z's columns in panels; then C = ZᵀS by one DGEMM.
  //  - else panels of b columns: Z_J decoded, S_J = A_gg⁻¹Z_J, C[:, J] = ZᵀS_J by the genotype
  //    product op on the 2-bit data (l = b).
  std::vector<double> build_c(int threads) {
    constexpr int64_t dense_elements = int64_t(1) << 27;  // 1 GiB of doubles
    const int64_t kg = kg_, ks = ks_;
    std::vector<double> C(ks * ks);
    double genotype = 0, pedigree = 0;
    const executor host = host_.with_threads(threads);
    if (kg * ks <= dense_elements) {
      stopwatch part;
      std::vector<double> Z(kg * ks), S(kg * ks);  // column-major kg × ks
      decode(0, ks, Z.data(), 1, kg, threads);
      genotype += part.seconds();
      part = stopwatch();
      if (kg <= ks) {
        std::vector<double> E(kg * kg, 0.0), Ainv(kg * kg);
        for (int64_t i = 0; i < kg; ++i) E[i * kg + i] = 1.0;
        agg_inv_->apply(kg, E.data(), Ainv.data());
        for (int64_t i = 0; i < kg; ++i)  // exact symmetry
          for (int64_t j = 0; j < i; ++j) Ainv[i * kg + j] = Ainv[j * kg + i] = 0.5 * (Ainv[i * kg + j] + Ainv[j * kg + i]);
        dense_gemm(host, false, false, kg, ks, kg, 1.0, Ainv.data(), kg, Z.data(), kg, 0.0, S.data(), kg);
      } else {
        const int64_t b = std::min<int64_t>(ks, 256);
        std::vector<double> P(kg * b), Q(kg * b);
        for (int64_t j0 = 0; j0 < ks; j0 += b) {
          const int64_t m = std::min(b, ks - j0);
          for (int64_t c = 0; c < m; ++c)
            for (int64_t i = 0; i < kg; ++i) P[i * m + c] = Z[(j0 + c) * kg + i];
          agg_inv_->apply(m, P.data(), Q.data());
          for (int64_t c = 0; c < m; ++c)
            for (int64_t i = 0; i < kg; ++i) S[(j0 + c) * kg + i] = Q[i * m + c];
        }
      }
      pedigree += part.seconds();
      part = stopwatch();
      dense_gemm(host, true, false, ks, ks, kg, 1 / w_, Z.data(), kg, S.data(), kg, 0.0, C.data(), ks);
      genotype += part.seconds();
    } else {
      const int64_t b = std::min<int64_t>(ks, 256);
      std::vector<double> Zb(kg * b), Sb(kg * b), Wb(ks * b);
      for (int64_t first = 0; first < ks; first += b) {
        const int64_t m = std::min(b, ks - first);
        stopwatch part;
        decode(first, first + m, Zb.data(), m, 1, threads);  // row-major kg × m
        genotype += part.seconds();
        part = stopwatch();
        agg_inv_->apply(m, Zb.data(), Sb.data());
        pedigree += part.seconds();
        part = stopwatch();
        gemm_transposed(*op_, centring_, m, Sb.data(), m, 0.0, Wb.data(), m);
        for (int64_t j = 0; j < ks; ++j)
          for (int64_t c = 0; c < m; ++c) C[j * ks + first + c] = Wb[j * m + c] / w_;
        genotype += part.seconds();
      }
    }
    for (int64_t j = 0; j < ks; ++j)
      for (int64_t i = 0; i < j; ++i) C[i * ks + j] = C[j * ks + i] = 0.5 * (C[i * ks + j] + C[j * ks + i]);
    for (int64_t j = 0; j < ks; ++j) C[j * ks + j] += c_ / (1 - w_);
    setup_seconds.emplace_back("C = Z'A_gg^-1 Z/w + c/(1-w) I: genotype decoding and products", genotype);
    setup_seconds.emplace_back("C = Z'A_gg^-1 Z/w + c/(1-w) I: A_gg^-1 products", pedigree);
    return C;
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
  std::unique_ptr<gemm_operand> op_;
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
