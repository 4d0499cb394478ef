// The single-step solver: assembles the mixed model equations from the records part
// (single_step_records.cpp) and the model's genetic part (single_step_<model>.cpp) and solves
// them by PCG with a block-diagonal preconditioner.
//
// Unknowns: [β (p) | g: animals × t, animal-major | û: SNPs × t (ssSNPBLUP only)]. Product:
//   y_β, y_g = records part (XᵀR⁻¹(Xβ + Wg), WᵀR⁻¹(Xβ + Wg)),   y_[g;û] += Σ⁻¹ ([g;û] G0⁻¹)
// since (Σ⁻¹ ⊗ G0⁻¹) applied to animal-major unknowns is Σ⁻¹ · X · G0⁻¹ (X the n × t block).
// Preconditioner: the fixed effects' dense block (XᵀR⁻¹X)⁻¹ when p ≤ dense_fixed_limit, else its
// diagonal; per animal the t × t block (WᵀR⁻¹W)_ii + d_i G0⁻¹, per SNP d_j G0⁻¹, with d the
// model's diagonal of Σ⁻¹ (or its approximation, see the model files).
// Where the vectors live: on a cuda executor whose model term takes device vectors (every product
// resident on the GPU), PCG's vectors, the records, the preconditioner's blocks and G0⁻¹ are put on
// the GPU and each iteration runs there (the device route: no vector crosses the bus); otherwise
// the vectors stay on the host and the device products take them across (the host route).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "core/small_cholesky.hpp"
#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/ops/record_products.hpp"
#include "panoramix/ops/solver_vectors.hpp"
#include "panoramix/transfer_buffer.hpp"
#include "single_step_terms.hpp"

namespace pmx {

std::string model_name(single_step_model m) {
  switch (m) {
    case single_step_model::pblup: return "pblup";
    case single_step_model::ssgblup: return "ssgblup";
    case single_step_model::sssnpblup: return "sssnpblup";
    case single_step_model::ssgtablup: return "ssgtablup";
  }
  return "?";
}

single_step_model parse_single_step_model(const std::string& name) {
  for (auto m : {single_step_model::pblup, single_step_model::ssgblup, single_step_model::sssnpblup,
                 single_step_model::ssgtablup})
    if (model_name(m) == name) return m;
  throw input_error("unknown model '" + name + "' (pblup, ssgblup, sssnpblup, ssgtablup)");
}

namespace {

// Inverse of a small SPD matrix by Cholesky (t ≤ 30); false when not positive definite.
bool spd_inverse_small(const double* a, int m, double* inv) {
  double L[30 * 30];
  if (detail::small_cholesky(a, m, L) != 0) return false;
  // inv = L⁻ᵀ L⁻¹, column by column of the identity.
  for (int c = 0; c < m; ++c) {
    double z[30];
    for (int i = 0; i < m; ++i) {
      double s = i == c ? 1.0 : 0.0;
      for (int k = 0; k < i; ++k) s -= L[i * m + k] * z[k];
      z[i] = s / L[i * m + i];
    }
    for (int i = m - 1; i >= 0; --i) {
      double s = z[i];
      for (int k = i + 1; k < m; ++k) s -= L[k * m + i] * z[k];
      z[i] = s / L[i * m + i];
    }
    for (int i = 0; i < m; ++i) inv[i * m + c] = z[i];
  }
  return true;
}

}  // namespace

single_step_solution solve_single_step(const executor& exec, const pedigree& ped,
                                       const breeding_records& records,
                                       const variance_components& vc,
                                       const single_step_genotypes* genotypes,
                                       const single_step_options& opt, progress_sink* progress) {
  using namespace detail;
  const int threads = exec.threads() > 0 ? exec.threads() : omp_get_max_threads();
  single_step_solution sol;
  const int t = records.traits_count();
  sol.t = t;
  const int64_t n = ped.size();
  const bool genomic = opt.model != single_step_model::pblup;
  if (genomic && !genotypes)
    throw input_error("model " + model_name(opt.model) + " needs genotypes (--bfile)");
  check_covariance_matrix(vc.genetic, t, "genetic (co)variance matrix");
  check_covariance_matrix(vc.residual, t, "residual (co)variance matrix");
  // ---- pedigree
  stopwatch sw;
  const std::vector<double> F = inbreeding(ped, threads);
  sol.setup_seconds.emplace_back("inbreeding", sw.seconds());
  sw = stopwatch();
  const sparse_symmetric ainv = a_inverse(ped, F, threads);
  const sparse_symmetric_operator ainv_cpu(ainv, exec.host());
  ainv_product ainv_op(ainv_cpu);
  sol.setup_seconds.emplace_back("A^-1 (Henderson's rules)", sw.seconds());
  // ---- records
  sw = stopwatch();
  const record_equations eq(ped, records, vc, threads);
  sol.setup_seconds.emplace_back("records and fixed effects", sw.seconds());
  for (const auto& s : eq.notes()) sol.notes.push_back(s);
  const int64_t p = eq.fixed_count();
  // ---- genetic part
  genomic_inputs gin;
  gin.ped = &ped;
  gin.F = &F;
  gin.ainv = &ainv;
  gin.ainv_op = &ainv_op;
  gin.geno = genotypes;
  gin.t = t;
  gin.threads = threads;
  if (genomic) {
    const auto& g = *genotypes;
    if (static_cast<int64_t>(g.animals.size()) != g.genotypes.n_samples)
      throw logic_error("solve_single_step: one pedigree index per genotyped sample expected");
    std::unordered_set<int64_t> seen;
    for (int64_t a : g.animals)
      if (a < 0 || a >= n || !seen.insert(a).second)
        throw logic_error("solve_single_step: genotyped animals must be distinct pedigree indices");
    sw = stopwatch();
    genotype_moments(g.genotypes, g.p.empty() ? nullptr : &g.p, gin.p, gin.sum_z2, threads);
    for (double x : gin.p) gin.two_sum_pq += 2 * x * (1 - x);
    if (!(gin.two_sum_pq > 0)) throw input_error("genotypes: every variant is monomorphic (2 sum p(1-p) = 0)");
    sol.p = gin.p;
    sol.two_sum_pq = gin.two_sum_pq;
    sol.setup_seconds.emplace_back("allele frequencies", sw.seconds());
  }
  std::unique_ptr<genetic_term> term;
  switch (opt.model) {
    case single_step_model::pblup: term = make_pblup_term(ainv, ainv_op, t, threads); break;
    case single_step_model::ssgblup: term = make_ssgblup_term(exec, gin); break;
    case single_step_model::sssnpblup: term = make_sssnpblup_term(exec, gin); break;
    case single_step_model::ssgtablup: term = make_ssgtablup_term(exec, gin); break;
  }
  for (const auto& s : term->setup_seconds) sol.setup_seconds.push_back(s);
  for (const auto& s : term->notes) sol.notes.push_back(s);
  if (exec.on_device()) {  // after the genotype operand: its upload matters more
    sw = stopwatch();
    sol.notes.push_back(ainv_op.to_device(exec));
    sol.setup_seconds.emplace_back("A^-1 upload", sw.seconds());
  }
  const int64_t extra = term->extra_rows();
  const int64_t rows = n + extra;
  const int64_t N = p + rows * t;
  sol.unknowns = N;
  // ---- G0⁻¹
  std::vector<double> G0inv(t * t);
  spd_inverse_small(vc.genetic.data(), t, G0inv.data());
  // ---- preconditioner
  sw = stopwatch();
  const bool dense_fixed = p <= opt.dense_fixed_limit;
  std::vector<double> fixed_pre;
  if (dense_fixed) {
    std::vector<double> XRX = eq.fixed_block();
    fixed_pre.assign(p * p, 0.0);
    for (int64_t i = 0; i < p; ++i) fixed_pre[i * p + i] = 1.0;
    std::vector<double> diag(p);
    for (int64_t i = 0; i < p; ++i) diag[i] = XRX[i * p + i];
    std::string why;
    try {
      cholesky_solve(exec.host().with_threads(threads), p, XRX.data(), p, p, fixed_pre.data(), p);
      // The cpu factorisation leaves L in the lower triangle: a pivot L_ii² that is a
      // rounding-level fraction of the diagonal means a column is (numerically) a combination
      // of earlier ones.
      for (int64_t i = 0; i < p && why.empty(); ++i)
        if (XRX[i * p + i] * XRX[i * p + i] < 1e-10 * diag[i])
          why = "column " + std::to_string(i + 1) + " is a combination of earlier ones";
    } catch (const numeric_error& e) {
      why = e.what();
    }
    if (!why.empty())
      throw input_error("the fixed effects are not estimable: X'R^-1X is singular (" + why +
                        "); a class level or covariate is confounded with the others");
  } else {
    fixed_pre = eq.fixed_diagonal();
    for (double& v : fixed_pre) {
      if (!(v > 0)) throw input_error("a fixed effect has no record");
      v = 1 / v;
    }
  }
  std::vector<double> block_inv(rows * t * t);
  {
    const std::vector<double> d = term->diagonal();
    const std::vector<double> blocks = eq.animal_blocks();
    int64_t bad = rows;  // the first row whose block is not positive definite
#pragma omp parallel num_threads(threads) if (rows >= 65536)
    {
      std::vector<double> B(t * t);
#pragma omp for schedule(static) reduction(min : bad)
      for (int64_t i = 0; i < rows; ++i) {
        for (int j = 0; j < t * t; ++j) B[j] = (i < n ? blocks[i * t * t + j] : 0.0) + d[i] * G0inv[j];
        if (!spd_inverse_small(B.data(), t, block_inv.data() + i * t * t)) bad = std::min(bad, i);
      }
    }
    if (bad < rows)
      throw numeric_error("preconditioner block of unknown row " + std::to_string(bad) + " is not positive definite");
  }
  sol.setup_seconds.emplace_back("preconditioner", sw.seconds());
  std::vector<double> G0t(t * t);  // block_multiply takes rows: the transpose of x ↦ x G0⁻¹
  for (int a = 0; a < t; ++a)
    for (int c = 0; c < t; ++c) G0t[a * t + c] = G0inv[c * t + a];
  // ---- the device route, when every product takes device vectors and everything fits
  std::unique_ptr<record_operand> records_dev;
  executor_array<double> fixed_pre_dev, block_inv_dev, G0_dev, V_dev, Y_dev;
  bool resident = false;
  if (exec.on_device() && !exec.tuning().pcg_on_device) {
    sol.notes.push_back("PCG vectors on the host (PMX_PCG_GPU=0)");
  } else if (exec.on_device() && !term->takes_device_vectors()) {
    sol.notes.push_back("PCG vectors on the host: the model's products are not all resident on the GPU");
  } else if (exec.on_device()) {
    sw = stopwatch();
    try {
      records_dev = std::make_unique<record_operand>(exec, eq.design());
      auto upload = [&](const std::vector<double>& v) {
        executor_array<double> d(exec, v.size());
        d.copy_from_host(v.data(), 0, v.size());
        return d;
      };
      fixed_pre_dev = upload(fixed_pre);
      block_inv_dev = upload(block_inv);
      G0_dev = upload(G0t);
      V_dev = executor_array<double>(exec, static_cast<size_t>(rows * t));
      Y_dev = executor_array<double>(exec, static_cast<size_t>(rows * t));
      resident = true;
      sol.pcg_on_device = true;
      sol.notes.push_back("PCG on the GPU: vectors, records, preconditioner resident (" + std::to_string(N) +
                          " unknowns)");
    } catch (const unsupported_error& e) {
      records_dev.reset();
      sol.notes.push_back(std::string("PCG vectors on the host: ") + e.what());
    }
    sol.setup_seconds.emplace_back("PCG on the GPU (records, preconditioner upload)", sw.seconds());
  }
  // ---- the host route's V and Y (they cross to the device on cuda: page-locked there)
  transfer_buffer V_buffer, Y_buffer;
  if (!resident)
    V_buffer = transfer_buffer(exec, static_cast<size_t>(rows * t)), Y_buffer = transfer_buffer(exec, static_cast<size_t>(rows * t));
  // ---- the product and the preconditioner: the same steps on either route, by the ops of the
  // executor that holds the vectors (the device's, or the host's threads)
  const executor vectors = resident ? exec : executor(backend::cpu, threads);
  const record_operand& records_op = resident ? *records_dev : eq.operand();
  double* V = resident ? V_dev.data() : V_buffer.data();
  double* Y = resident ? Y_dev.data() : Y_buffer.data();
  const double* G0_rows = resident ? G0_dev.data() : G0t.data();
  const double* fixed_blocks = resident ? fixed_pre_dev.data() : fixed_pre.data();
  const double* animal_blocks = resident ? block_inv_dev.data() : block_inv.data();
  auto apply = [&](const double* x, double* y) {
    stopwatch all;
    const double gs = term->genotype_seconds, ps = term->pedigree_seconds;
    record_multiply(records_op, x, x + p, y, y + p);
    block_multiply(vectors, rows, t, G0_rows, 0, x + p, V);
    term->apply(V, Y);
    axpby(vectors, n, t, 1.0, Y, t, 1.0, y + p, t);
    axpby(vectors, extra, t, 1.0, Y + n * t, t, 0.0, y + p + n * t, t);
    ++sol.products;
    sol.other_seconds += all.seconds() - (term->genotype_seconds - gs) - (term->pedigree_seconds - ps);
    sol.genotype_seconds_after.push_back(term->genotype_seconds);
    sol.pedigree_seconds_after.push_back(term->pedigree_seconds);
  };
  auto precondition = [&](const double* r, double* z) {
    if (dense_fixed) block_multiply(vectors, 1, p, fixed_blocks, 0, r, z);
    else block_multiply(vectors, p, 1, fixed_blocks, 1, r, z);
    block_multiply(vectors, rows, t, animal_blocks, int64_t{t} * t, r + p, z + p);
  };
  std::vector<double> b(N, 0.0), x(N, 0.0);
  eq.rhs(b.data(), b.data() + p);
  sol.genotype_seconds_after.reserve(opt.max_iterations + 2);
  sol.pedigree_seconds_after.reserve(opt.max_iterations + 2);
  pcg_observer observe;
  if (opt.on_iteration)
    observe = [&](const pcg_iteration& h) { opt.on_iteration(h, term->genotype_seconds, term->pedigree_seconds); };
  const pcg_stopping stop{opt.tol, opt.solution_tol, opt.max_iterations};
  sol.pcg = pcg_solve(vectors, N, apply, precondition, b.data(), x.data(), stop, progress, observe);
  sol.genotype_seconds = term->genotype_seconds;
  sol.pedigree_seconds = term->pedigree_seconds;
  sol.ebv.assign(x.begin() + p, x.begin() + p + n * t);
  if (extra > 0) sol.snp.assign(x.begin() + p + n * t, x.end());
  sol.fixed = eq.estimates(x.data());
  return sol;
}

}  // namespace pmx
