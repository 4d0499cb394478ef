// ssGBLUP with an explicit inverse (Legarra et al. 2009; Aguilar et al. 2010; thesis eq. 2.13):
//   H⁻¹ = A⁻¹ + [0 0; 0 G̃⁻¹ − A_gg⁻¹],   G̃ = (1−w)G + wA_gg,   G = ZZᵀ/(2Σp(1−p)).
// Set-up: A_gg by Colleau's indirect method (dense, k_g × k_g), G through the genotype product
// ops, both inverted by Cholesky (dense_linalg on the executor); M = G̃⁻¹ − A_gg⁻¹ kept dense.
// Per iteration: Y = A⁻¹V (sparse) and Y_g += M V_g (dense k_g × k_g times k_g × t).
// For small and medium k_g (O(k_g²) memory, O(k_g³) set-up): the oracle of the other models.
#include <algorithm>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "single_step_terms.hpp"

namespace pmx::detail {
namespace {

// Inverse of an SPD k × k matrix (row-major = column-major, symmetric) by Cholesky solves.
std::vector<double> spd_inverse(const executor& exec, std::vector<double> M, int64_t k, const std::string& what) {
  std::vector<double> inv(k * k, 0.0);
  for (int64_t i = 0; i < k; ++i) inv[i * k + i] = 1.0;
  try {
    cholesky_solve(exec, k, M.data(), k, k, inv.data(), k);
  } catch (const numeric_error& e) {
    throw numeric_error(what + " is not positive definite (" + e.what() + ")");
  }
  for (int64_t i = 0; i < k; ++i)  // exact symmetry
    for (int64_t j = 0; j < i; ++j) inv[i * k + j] = inv[j * k + i] = 0.5 * (inv[i * k + j] + inv[j * k + i]);
  return inv;
}

class ssgblup_term final : public genetic_term {
 public:
  ssgblup_term(const executor& exec, const genomic_inputs& in)
      : exec_(exec.on_device() ? exec : exec.with_threads(in.threads)),
        host_(exec.host().with_threads(in.threads)), in_(in),
        k_(static_cast<int64_t>(in.geno->animals.size())), t_(in.t) {
    const double w = in.geno->w;
    if (!(w >= 0 && w < 1)) throw input_error("ssgblup needs 0 <= w < 1 (w = " + std::to_string(w) + ")");
    stopwatch sw;
    std::vector<double> Agg = pedigree_relationships_among(*in.ped, *in.F, in.geno->animals, in.threads);
    setup_seconds.emplace_back("A_gg (Colleau, dense)", sw.seconds());
    sw = stopwatch();
    std::vector<double> G = vanraden_grm(exec, in.geno->genotypes, in.p);
    setup_seconds.emplace_back("G = ZZ'/(2 sum pq)", sw.seconds());
    sw = stopwatch();
    for (int64_t i = 0; i < k_ * k_; ++i) G[i] = (1 - w) * G[i] + w * Agg[i];
    M_ = spd_inverse(exec_, std::move(G), k_, "G~ = (1-w)G + wA_gg");
    const std::vector<double> Agg_inv = spd_inverse(exec_, std::move(Agg), k_, "A_gg");
    for (int64_t i = 0; i < k_ * k_; ++i) M_[i] -= Agg_inv[i];
    setup_seconds.emplace_back("G~^-1 - A_gg^-1 (dense Cholesky)", sw.seconds());
    Vg_.resize(k_ * t_);
    Yg_.resize(k_ * t_);
  }
  void apply(const double* V, double* Y) override {
    stopwatch sw;
    in_.ainv_op->apply(t_, V, Y, in_.threads);
    pedigree_seconds += sw.seconds();
    sw = stopwatch();
    const auto& g = in_.geno->animals;
    for (int64_t i = 0; i < k_; ++i)
      std::copy(V + g[i] * t_, V + (g[i] + 1) * t_, Vg_.begin() + i * t_);
    // Row-major Y_g (k × t) = M V_g  ⇔  column-major Y_gᵀ (t × k) = V_gᵀ M.
    dense_gemm(host_, false, false, t_, k_, k_, 1.0, Vg_.data(), t_, M_.data(), k_, 0.0, Yg_.data(), t_);
    for (int64_t i = 0; i < k_; ++i)
      for (int c = 0; c < t_; ++c) Y[g[i] * t_ + c] += Yg_[i * t_ + c];
    genotype_seconds += sw.seconds();
  }
  std::vector<double> diagonal() const override {
    const sparse_symmetric& a = *in_.ainv;
    std::vector<double> d(a.n);
    for (int64_t i = 0; i < a.n; ++i) d[i] = a.value[a.row_start[i + 1] - 1];
    for (int64_t i = 0; i < k_; ++i) d[in_.geno->animals[i]] += M_[i * k_ + i];
    return d;
  }

 private:
  executor exec_;
  executor host_;
  const genomic_inputs& in_;
  int64_t k_;
  int t_;
  std::vector<double> M_, Vg_, Yg_;
};

}  // namespace

std::unique_ptr<genetic_term> make_ssgblup_term(const executor& exec, const genomic_inputs& in) {
  return std::make_unique<ssgblup_term>(exec, in);
}

}  // namespace pmx::detail
