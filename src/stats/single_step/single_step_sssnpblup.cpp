// ssSNPBLUP of Liu et al. (2014), thesis eq. 2.16: unknowns (g_n, g_g, u), g_g = a_g + Zu with
// Var(a) = wA (residual polygenic part) and Var(u) = (1−w)/c · I, c = 2Σp(1−p), so that
// Var(g_g) = G̃ = (1−w)ZZᵀ/c + wA_gg and ĝ equals ssGBLUP's. The prior precision (× G0⁻¹) is
//   Σ⁻¹ = [A^nn  A^ng                      0               ]
//         [A^gn  A^gg + (1/w − 1)A_gg⁻¹    −(1/w)A_gg⁻¹Z    ]
//         [0     −(1/w)ZᵀA_gg⁻¹            (1/w)ZᵀA_gg⁻¹Z + c/(1−w)·I]
// (derived from p(g_n | g_g) p(g_g | u) p(u); the A^gn(A^nn)⁻¹A^ng terms combine into A_gg⁻¹).
// Applied to V = [V_a; V_u] (animals, SNPs; t columns, already × G0⁻¹) with P = Z V_u and
// [S1 | S2] = A_gg⁻¹ [V_g | P − V_g] (one A_gg⁻¹ product with 2t columns):
//   Y_a = A⁻¹V_a,   Y_g += −S1 − S2/w,   Y_u = ZᵀS2/w + c/(1−w) V_u.
// Per iteration: one Z·Λ and one Zᵀ·Λ̃ (l = t) on the executor, A_gg⁻¹ on the CPU, A⁻¹ on the
// CPU or (cuda, when it fits the device) on the GPU; on cuda, A⁻¹V on the GPU runs while the CPU
// applies A_gg⁻¹, or A⁻¹V on the CPU while the GPU forms Z·V_u. When every piece is resident on
// the GPU (A⁻¹, A_gg⁻¹'s products and sweeps, the genotypes), V and Y are device memory and the
// whole product runs there, one step after the other on device vectors (apply_on_device).
// Preconditioner diagonal (an approximation; PCG only needs it positive): A⁻¹_ii, plus
// (1/w − 1)A^gg_ii for genotyped animals (A^gg_ii ≥ (A_gg⁻¹)_ii), and for SNP j
// Σ_i z_ij²/w + c/(1−w) (A_gg⁻¹ replaced by I in (ZᵀA_gg⁻¹Z)_jj).
#include <algorithm>
#include <future>

#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/ops/solver_vectors.hpp"
#include "panoramix/transfer_buffer.hpp"
#include "single_step_terms.hpp"

namespace pmx::detail {
namespace {

class sssnpblup_term final : public genetic_term {
 public:
  sssnpblup_term(const executor& exec, const genomic_inputs& in)
      : in_(in), w_(in.geno->w), c_(in.two_sum_pq), n_(in.ped->size()),
        kg_(static_cast<int64_t>(in.geno->animals.size())), ks_(in.geno->genotypes.n_variants),
        t_(in.t), centring_{in.p, {}} {
    auto operands = make_snp_model_operands("sssnpblup", exec, in, *this);
    op_ = std::move(operands.genotypes);
    agg_inv_ = std::move(operands.agg_inv);
    // The vectors that cross to the device each product: page-locked on cuda.
    P_ = transfer_buffer(op_->exec(), static_cast<size_t>(kg_ * t_));
    S2_ = transfer_buffer(op_->exec(), static_cast<size_t>(kg_ * t_));
    B_.resize(kg_ * 2 * t_);
    S_.resize(kg_ * 2 * t_);
  }
  int64_t extra_rows() const override { return ks_; }
  bool takes_device_vectors() const override {
    return op_->exec().on_device() && in_.ainv_op->on_device() && agg_inv_->on_device();
  }
  void apply(const double* V, double* Y) override {
    if (takes_device_vectors() && detail::points_to_device(V)) return apply_on_device(V, Y);
    const int t = t_;
    const auto& g = in_.geno->animals;
    stopwatch sw;
    auto zv = [&] {  // P = Z V_u; its seconds
      stopwatch s;
      gemm(*op_, centring_, t, V + n_ * t, t, 0.0, P_.data(), t);
      return s.seconds();
    };
    std::future<void> ainv_on_device;
    if (op_->exec().on_device() && in_.ainv_op->on_device()) {
      // Both products on the GPU, one after the other: P (which A_gg⁻¹ waits for), then A⁻¹V,
      // which runs while the CPU applies A_gg⁻¹.
      std::promise<double> p_ready;
      std::future<double> p_seconds = p_ready.get_future();
      ainv_on_device = std::async(std::launch::async, [&, p_ready = std::move(p_ready)]() mutable {
        try {
          p_ready.set_value(zv());
        } catch (...) {
          p_ready.set_exception(std::current_exception());
          throw;
        }
        in_.ainv_op->apply(t, V, Y, 1);
      });
      genotype_seconds += p_seconds.get();
      sw = stopwatch();
    } else if (op_->exec().on_device()) {
      // The GPU product runs while the CPU applies A⁻¹ on one thread fewer: the product's thread
      // mostly waits on the device, but when it wakes it should find a free core.
      auto product = std::async(std::launch::async, zv);
      in_.ainv_op->apply(t, V, Y, std::max(1, in_.threads - 1));
      pedigree_seconds += sw.seconds();
      genotype_seconds += product.get();
      sw = stopwatch();
    } else {
      in_.ainv_op->apply(t, V, Y, in_.threads);
      pedigree_seconds += sw.seconds();
      genotype_seconds += zv();
      sw = stopwatch();
    }
    for (int64_t i = 0; i < kg_; ++i)
      for (int c = 0; c < t; ++c) {
        const double vg = V[g[i] * t + c];
        B_[i * 2 * t + c] = vg;
        B_[i * 2 * t + t + c] = P_.data()[i * t + c] - vg;
      }
    agg_inv_->apply(2 * t, B_.data(), S_.data());
    if (ainv_on_device.valid()) ainv_on_device.get();  // Y = A⁻¹V before A_gg⁻¹'s terms go in
    double* S2 = S2_.data();
    for (int64_t i = 0; i < kg_; ++i)
      for (int c = 0; c < t; ++c) {
        const double s2 = S_[i * 2 * t + t + c];
        Y[g[i] * t + c] -= S_[i * 2 * t + c] + s2 / w_;
        S2[i * t + c] = s2;
      }
    pedigree_seconds += sw.seconds();
    sw = stopwatch();
    double* Yu = Y + n_ * t;
    gemm_transposed(*op_, centring_, t, S2, t, 0.0, Yu, t);  // Zᵀ S2
    const double* Vu = V + n_ * t;
    const double a = 1 / w_, b = c_ / (1 - w_);
    for (int64_t j = 0; j < ks_ * t; ++j) Yu[j] = a * Yu[j] + b * Vu[j];
    genotype_seconds += sw.seconds();
  }
  // The product above with V and Y in device memory: B = [V_g | Z V_u − V_g] (k × 2t), S = A_gg⁻¹ B,
  // Y_g −= S1 + S2/w, Y_u = Zᵀ S2 / w + c/(1−w) V_u, every step on the GPU.
  void apply_on_device(const double* V, double* Y) {
    const int t = t_;
    const executor& exec = op_->exec();
    if (B_dev_.size() == 0) {
      index_dev_ = executor_array<int64_t>(exec, static_cast<size_t>(kg_));
      index_dev_.copy_from_host(in_.geno->animals.data(), 0, static_cast<size_t>(kg_));
      B_dev_ = executor_array<double>(exec, static_cast<size_t>(kg_ * 2 * t));
      S_dev_ = executor_array<double>(exec, static_cast<size_t>(kg_ * 2 * t));
    }
    double* B = B_dev_.data();
    double* S = S_dev_.data();
    stopwatch sw;
    in_.ainv_op->apply(t, V, Y, 1);  // Y_a = A⁻¹ V_a
    pedigree_seconds += sw.seconds();
    sw = stopwatch();
    gemm(*op_, centring_, t, V + n_ * t, t, 0.0, B + t, 2 * t);  // P = Z V_u, into B's second half
    genotype_seconds += sw.seconds();
    sw = stopwatch();
    gather_rows(exec, kg_, t, index_dev_.data(), V, t, B, 2 * t);
    axpby(exec, kg_, t, -1.0, B, 2 * t, 1.0, B + t, 2 * t);
    agg_inv_->apply(2 * t, B, S);
    scatter_add_rows(exec, kg_, t, index_dev_.data(), -1.0, S, 2 * t, Y, t);
    scatter_add_rows(exec, kg_, t, index_dev_.data(), -1.0 / w_, S + t, 2 * t, Y, t);
    pedigree_seconds += sw.seconds();
    sw = stopwatch();
    double* Yu = Y + n_ * t;
    gemm_transposed(*op_, centring_, t, S + t, 2 * t, 0.0, Yu, t);  // Zᵀ S2
    axpby(exec, ks_, t, c_ / (1 - w_), V + n_ * t, t, 1 / w_, Yu, t);
    genotype_seconds += sw.seconds();
  }
  std::vector<double> diagonal() const override {
    const sparse_symmetric& A = *in_.ainv;
    std::vector<double> d(n_ + ks_);
    for (int64_t i = 0; i < n_; ++i) d[i] = A.value[A.row_start[i + 1] - 1];
    for (int64_t gi : in_.geno->animals) d[gi] += (1 / w_ - 1) * A.value[A.row_start[gi + 1] - 1];
    for (int64_t j = 0; j < ks_; ++j) d[n_ + j] = in_.sum_z2[j] / w_ + c_ / (1 - w_);
    return d;
  }

 private:
  const genomic_inputs& in_;
  double w_, c_;
  int64_t n_, kg_, ks_;
  int t_;
  std::unique_ptr<gemm_operand> op_;
  gemm_centring centring_;
  std::unique_ptr<genotyped_a_inverse> agg_inv_;
  transfer_buffer P_, S2_;
  std::vector<double> B_, S_;
  executor_array<int64_t> index_dev_;  // the genotyped animals' rows (apply_on_device)
  executor_array<double> B_dev_, S_dev_;
};

}  // namespace

std::unique_ptr<genetic_term> make_sssnpblup_term(const executor& exec, const genomic_inputs& in) {
  return std::make_unique<sssnpblup_term>(exec, in);
}

}  // namespace pmx::detail
