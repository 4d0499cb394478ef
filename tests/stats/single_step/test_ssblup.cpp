// Pedigree BLUP and single-step models against independent oracles:
//  - pblup (PCG) == a dense Cholesky solve of its mixed model equations, built here record by
//    record from A⁻¹ (simulated pedigree; pedigreemm's Holstein milk records, 1 trait), and == a
//    sparse Cholesky solve (CHOLMOD) of the same equations for milk with 3 traits (~20,000
//    unknowns, too many for a dense solve in a test);
//  - ssgblup (PCG) == a dense solve of the ssGBLUP MME with H⁻¹ the dense inverse of
//    single_step_h() (H of Legarra et al. 2009 from the tabular A and G computed here from the
//    dosages), on simulated data and on synbreed's cattle (real pedigree and genotypes);
//  - sssnpblup and ssgtablup == ssgblup EBVs to 1e-9 relative, each stopped on its estimated
//    error (same data, 1 and 3 traits with missing records); test_ssblup_unsorted repeats this
//    from unsorted files through the command line;
//  - input errors and the command line (outputs and .log written).
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "panoramix/breeding_records.hpp"
#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/plink_files.hpp"
#include "panoramix/single_step.hpp"
#include "panoramix/single_step_h.hpp"
#include "simulate/pedigree_sim.hpp"
#include "stats/single_step/single_step_terms.hpp"
// CHOLMOD's header for the sparse direct oracle: in the system include path on Debian (CI); a
// build that finds CHOLMOD elsewhere (CMAKE_PREFIX_PATH) skips that one test.
#if __has_include(<suitesparse/cholmod.h>)
#include <suitesparse/cholmod.h>
#define PMX_TEST_HAVE_CHOLMOD 1
#endif
#include "single_step_data.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {


// ---------------------------------------------------------------- the dense oracle
// Levels sorted as documented: numerically when every level is a number, else as text.
std::vector<std::string> oracle_levels(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  bool numeric = true;
  for (const auto& s : v) {
    double x;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
    numeric = numeric && r.ec == std::errc() && r.ptr == s.data() + s.size();
  }
  if (numeric) std::stable_sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return std::stod(a) < std::stod(b); });
  return v;
}

struct oracle_solution {
  std::vector<double> beta;  // per trait: intercept, class levels (non-reference), covariates
  std::vector<double> ebv;   // n × t
};

// One nonzero of a symmetric H⁻¹ (both triangles listed).
struct hinv_entry {
  int64_t i, j;
  double value;
};

std::vector<hinv_entry> entries_of_dense(const std::vector<double>& H, int64_t n) {
  std::vector<hinv_entry> e;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (H[i * n + j] != 0) e.push_back({i, j, H[i * n + j]});
  return e;
}

// A⁻¹ by Henderson's rules (checked against dense inverses in test_pedigree), both triangles.
std::vector<hinv_entry> ainv_entries(const pedigree& ped) {
  const sparse_symmetric s = a_inverse(ped);
  std::vector<hinv_entry> e;
  for (int64_t r = 0; r < ped.size(); ++r)
    for (int64_t k = s.row_start[r]; k < s.row_start[r + 1]; ++k) {
      e.push_back({r, s.col[k], s.value[k]});
      if (s.col[k] != r) e.push_back({s.col[k], r, s.value[k]});
    }
  return e;
}

// The MME [XᵀR⁻¹X XᵀR⁻¹W; WᵀR⁻¹X WᵀR⁻¹W + H⁻¹⊗G0⁻¹] written out record by record, with the
// design built here (raw covariates): terms(f, g) calls f(i, j, value) for every term of C
// (duplicates add up) and g(i, value) for every term of the right-hand side, so one pass fills a
// matrix and another computes residuals.
class mme_terms {
 public:
  mme_terms(const pedigree& ped, const breeding_records& rec, const variance_components& vc,
            std::vector<hinv_entry> hinv)
      : ped_(ped), rec_(rec), hinv_(std::move(hinv)), t_(rec.traits_count()), n_(ped.size()), R_(rec.size()),
        nc_(static_cast<int>(rec.classes.size())), nv_(static_cast<int>(rec.covariates.size())) {
    const int t = t_;
    col_.assign(t, std::vector<std::map<std::string, int64_t>>(nc_));
    icol_.resize(t);
    vcol_.assign(t, std::vector<int64_t>(nv_));
    for (int k = 0; k < t; ++k) {
      icol_[k] = p_++;
      for (int c = 0; c < nc_; ++c) {
        std::vector<std::string> with;
        for (int64_t r = 0; r < R_; ++r)
          if (!std::isnan(rec.y[r * t + k])) with.push_back(rec.level[c][r]);
        const auto lv = oracle_levels(with);
        for (size_t l = 1; l < lv.size(); ++l) col_[k][c][lv[l]] = p_++;
      }
      for (int v = 0; v < nv_; ++v) vcol_[k][v] = p_++;
    }
    std::vector<double> G0 = vc.genetic;
    G0inv_.assign(t * t, 0.0);
    for (int i = 0; i < t; ++i) G0inv_[i * t + i] = 1;
    cholesky_solve(executor(backend::cpu), t, G0.data(), t, t, G0inv_.data(), t);
    obs_.resize(R_);
    Rinv_.resize(R_);
    for (int64_t r = 0; r < R_; ++r) {  // R_r⁻¹ of each record's observed traits
      for (int k = 0; k < t; ++k)
        if (!std::isnan(rec.y[r * t + k])) obs_[r].push_back(k);
      const int m = static_cast<int>(obs_[r].size());
      std::vector<double> Rs(m * m);
      Rinv_[r].assign(m * m, 0.0);
      for (int a = 0; a < m; ++a) {
        Rinv_[r][a * m + a] = 1;
        for (int c = 0; c < m; ++c) Rs[a * m + c] = vc.residual[obs_[r][a] * t + obs_[r][c]];
      }
      cholesky_solve(executor(backend::cpu), m, Rs.data(), m, m, Rinv_[r].data(), m);
    }
  }
  int64_t fixed() const { return p_; }
  int64_t size() const { return p_ + n_ * t_; }

  template <class F, class G>
  void terms(F&& f, G&& g) const {
    const int t = t_;
    for (int64_t r = 0; r < R_; ++r) {
      const int m = static_cast<int>(obs_[r].size());
      std::vector<std::vector<std::pair<int64_t, double>>> rows(m);  // sparse rows of [X W]
      const int64_t animal = ped_.index(rec_.id[r]);
      for (int a = 0; a < m; ++a) {
        const int k = obs_[r][a];
        rows[a].push_back({icol_[k], 1.0});
        for (int c = 0; c < nc_; ++c) {
          auto it = col_[k][c].find(rec_.level[c][r]);
          if (it != col_[k][c].end()) rows[a].push_back({it->second, 1.0});
        }
        for (int v = 0; v < nv_; ++v) rows[a].push_back({vcol_[k][v], rec_.covariate[v][r]});
        rows[a].push_back({p_ + animal * t + k, 1.0});
      }
      for (int a = 0; a < m; ++a)
        for (int c = 0; c < m; ++c) {
          const double w = Rinv_[r][a * m + c];
          for (auto [i, xi] : rows[a]) {
            g(i, xi * w * rec_.y[r * t + obs_[r][c]]);
            for (auto [j, xj] : rows[c]) f(i, j, xi * w * xj);
          }
        }
    }
    for (const auto& h : hinv_)
      for (int a = 0; a < t; ++a)
        for (int c = 0; c < t; ++c) f(p_ + h.i * t + a, p_ + h.j * t + c, h.value * G0inv_[a * t + c]);
  }

  // Right-hand side in long double.
  std::vector<long double> rhs() const {
    std::vector<long double> b(size(), 0.0L);
    terms([](int64_t, int64_t, double) {}, [&](int64_t i, double v) { b[i] += v; });
    return b;
  }
  // b − C x in long double.
  std::vector<long double> residual(const std::vector<long double>& b, const std::vector<double>& x) const {
    std::vector<long double> r(b);
    terms([&](int64_t i, int64_t j, double v) { r[i] -= static_cast<long double>(v) * x[j]; },
          [](int64_t, double) {});
    return r;
  }

 private:
  const pedigree& ped_;
  const breeding_records& rec_;
  std::vector<hinv_entry> hinv_;
  int t_;
  int64_t n_, R_, p_ = 0;
  int nc_, nv_;
  std::vector<std::vector<std::map<std::string, int64_t>>> col_;
  std::vector<int64_t> icol_;
  std::vector<std::vector<int64_t>> vcol_;
  std::vector<double> G0inv_;
  std::vector<std::vector<int>> obs_;
  std::vector<std::vector<double>> Rinv_;
};

oracle_solution split(const mme_terms& m, const std::vector<double>& x) {
  oracle_solution s;
  s.beta.assign(x.begin(), x.begin() + m.fixed());
  s.ebv.assign(x.begin() + m.fixed(), x.end());
  return s;
}

// The MME solved by a dense Cholesky factorisation (LAPACK); the cpu backend leaves L in the lower
// triangle (column-major: L(i, j) at F[i + j·N]), reused for two steps of iterative refinement
// with residuals in long double (the factorisation alone loses digits to the conditioning of
// raw-scale data).
oracle_solution dense_mme_solve(const pedigree& ped, const breeding_records& rec,
                                const variance_components& vc, const std::vector<double>& Hinv) {
  const mme_terms m(ped, rec, vc, entries_of_dense(Hinv, ped.size()));
  const int64_t N = m.size();
  const std::vector<long double> rhs = m.rhs();
  std::vector<double> F(N * N, 0.0), b(N);
  m.terms([&](int64_t i, int64_t j, double v) { F[i * N + j] += v; }, [](int64_t, double) {});
  for (int64_t i = 0; i < N; ++i) b[i] = static_cast<double>(rhs[i]);
  cholesky_solve(executor(backend::cpu), N, F.data(), N, 1, b.data(), N);
  for (int step = 0; step < 2; ++step) {
    const std::vector<long double> res = m.residual(rhs, b);
    std::vector<double> d(N);
    for (int64_t i = 0; i < N; ++i) {  // L y = res
      long double s = res[i];
      for (int64_t j = 0; j < i; ++j) s -= static_cast<long double>(F[i + j * N]) * d[j];
      d[i] = static_cast<double>(s / F[i + i * N]);
    }
    for (int64_t i = N - 1; i >= 0; --i) {  // Lᵀ x = y
      long double s = d[i];
      for (int64_t j = i + 1; j < N; ++j) s -= static_cast<long double>(F[j + i * N]) * d[j];
      d[i] = static_cast<double>(s / F[i + i * N]);
    }
    for (int64_t i = 0; i < N; ++i) b[i] += d[i];
  }
  return split(m, b);
}

// The same MME assembled as a sparse matrix (lower triangle, duplicates summed) and solved by a
// sparse Cholesky factorisation (CHOLMOD, its fill-reducing ordering), with the same two steps of
// long-double iterative refinement: an independent direct method for systems too large to hold
// densely (pedigreemm milk with 3 traits: ~20,000 unknowns, 104 s as a dense solve).
#ifdef PMX_TEST_HAVE_CHOLMOD
oracle_solution sparse_mme_solve(const pedigree& ped, const breeding_records& rec,
                                 const variance_components& vc, std::vector<hinv_entry> hinv) {
  const mme_terms m(ped, rec, vc, std::move(hinv));
  const int64_t N = m.size();
  std::vector<int64_t> ti, tj;
  std::vector<double> tv;
  m.terms(
      [&](int64_t i, int64_t j, double v) {
        if (i >= j) ti.push_back(i), tj.push_back(j), tv.push_back(v);
      },
      [](int64_t, double) {});
  cholmod_common cm;
  cholmod_l_start(&cm);
  cholmod_triplet* T = cholmod_l_allocate_triplet(N, N, tv.size(), -1, CHOLMOD_REAL, &cm);
  for (size_t q = 0; q < tv.size(); ++q) {
    static_cast<int64_t*>(T->i)[q] = ti[q];
    static_cast<int64_t*>(T->j)[q] = tj[q];
    static_cast<double*>(T->x)[q] = tv[q];
  }
  T->nnz = tv.size();
  cholmod_sparse* C = cholmod_l_triplet_to_sparse(T, tv.size(), &cm);
  cholmod_factor* L = cholmod_l_analyze(C, &cm);
  cholmod_l_factorize(C, L, &cm);
  EXPECT_EQ(cm.status, CHOLMOD_OK) << "CHOLMOD factorisation of the MME";
  const std::vector<long double> rhs = m.rhs();
  cholmod_dense* B = cholmod_l_zeros(N, 1, CHOLMOD_REAL, &cm);
  auto solve = [&](const std::vector<long double>& r) {
    for (int64_t i = 0; i < N; ++i) static_cast<double*>(B->x)[i] = static_cast<double>(r[i]);
    cholmod_dense* X = cholmod_l_solve(CHOLMOD_A, L, B, &cm);
    std::vector<double> x(static_cast<double*>(X->x), static_cast<double*>(X->x) + N);
    cholmod_l_free_dense(&X, &cm);
    return x;
  };
  std::vector<double> x = solve(rhs);
  for (int step = 0; step < 2; ++step) {
    const std::vector<double> d = solve(m.residual(rhs, x));
    for (int64_t i = 0; i < N; ++i) x[i] += d[i];
  }
  cholmod_l_free_dense(&B, &cm);
  cholmod_l_free_factor(&L, &cm);
  cholmod_l_free_sparse(&C, &cm);
  cholmod_l_free_triplet(&T, &cm);
  cholmod_l_finish(&cm);
  return split(m, x);
}
#endif

// VanRaden G from the dosages, written out: p over called genotypes, z = x − 2p (0 if missing).
std::vector<double> oracle_grm(const variant_major_view& g) {
  const int64_t n = g.n_samples, k = g.n_variants;
  std::vector<double> Z(n * k, 0.0);
  double c = 0;
  for (int64_t j = 0; j < k; ++j) {
    double s = 0, m = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int d = dosage_of_code(g.code(i, j));
      if (d >= 0) s += d, m += 1;
    }
    const double p = m > 0 ? s / (2 * m) : 0.0;
    c += 2 * p * (1 - p);
    for (int64_t i = 0; i < n; ++i) {
      const int d = dosage_of_code(g.code(i, j));
      if (d >= 0) Z[i * k + j] = d - 2 * p;
    }
  }
  std::vector<double> G(n * n, 0.0);
  dense_gemm(executor(backend::cpu), true, false, n, n, k, 1.0 / c, Z.data(), k, Z.data(), k, 0.0, G.data(), n);
  return G;
}

// Dense H⁻¹ of ssGBLUP: the inverse of H (single_step_h with G̃ = (1−w)G + wA_gg).
std::vector<double> oracle_hinv(const pedigree& ped, const std::vector<int64_t>& genotyped,
                                const std::vector<double>& G, double w) {
  const int64_t n = ped.size(), k = static_cast<int64_t>(genotyped.size());
  const std::vector<double> A = relationship_matrix(ped);
  std::vector<double> Gt(k * k);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j) Gt[i * k + j] = (1 - w) * G[i * k + j] + w * A[genotyped[i] * n + genotyped[j]];
  std::vector<double> H = single_step_h(executor(backend::cpu), n, A, genotyped, Gt);
  std::vector<double> Hinv(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) Hinv[i * n + i] = 1;
  cholesky_solve(executor(backend::cpu), n, H.data(), n, n, Hinv.data(), n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) Hinv[i * n + j] = Hinv[j * n + i];
  return Hinv;
}

std::vector<double> estimated_betas(const single_step_solution& s) {
  std::vector<double> b;
  for (const auto& f : s.fixed)
    if (!f.reference) b.push_back(f.value);
  return b;
}

// ---------------------------------------------------------------- data sets

// Stops on `tol` (‖r‖²/‖b‖²), or with solution_tol > 0 on the estimated error of the solutions.
single_step_solution solve(const dataset& d, single_step_model m, double tol, double w = 0.2,
                           double solution_tol = 0) {
  single_step_genotypes g;
  g.genotypes = d.geno.view();
  g.animals = d.genotyped;
  g.w = w;
  single_step_options o;
  o.model = m;
  o.tol = tol;
  o.solution_tol = solution_tol;
  o.max_iterations = 20000;
  const auto s = solve_single_step(executor(backend::cpu), d.ped, d.rec, d.vc,
                                   m == single_step_model::pblup ? nullptr : &g, o);
  EXPECT_TRUE(s.pcg.converged) << model_name(m) << ": " << s.pcg.iterations << " iterations";
  return s;
}

// ---------------------------------------------------------------- pblup vs dense
// The oracle: a dense solve (the "dense solve of its mixed model equations"), or for the
// large milk system a sparse direct one.
enum class direct { dense, sparse };

void expect_pblup_equals_direct(const dataset& d, double tol_rel, direct how = direct::dense) {
  const auto s = solve(d, single_step_model::pblup, 1e-30);
  oracle_solution o;
  if (how == direct::sparse) {
#ifdef PMX_TEST_HAVE_CHOLMOD
    o = sparse_mme_solve(d.ped, d.rec, d.vc, ainv_entries(d.ped));
#else
    GTEST_SKIP() << "<suitesparse/cholmod.h> is not in the include path of this build";
#endif
  } else {
    const int64_t n = d.ped.size();
    std::vector<double> Ainv(n * n, 0.0);
    for (const auto& e : ainv_entries(d.ped)) Ainv[e.i * n + e.j] = e.value;
    o = dense_mme_solve(d.ped, d.rec, d.vc, Ainv);
  }
  const double e = rel_diff(s.ebv, o.ebv), f = rel_diff(estimated_betas(s), o.beta);
  EXPECT_LE(e, tol_rel) << "EBV";
  EXPECT_LE(f, tol_rel) << "fixed effects";
  std::printf("pblup t=%d: %lld iterations, true relative residual %.2e, EBV rel. diff vs %s solve %.2e, fixed %.2e\n",
              d.rec.traits_count(), static_cast<long long>(s.pcg.iterations), s.pcg.true_relative_residual,
              how == direct::sparse ? "sparse" : "dense", e, f);
}

TEST(SsblupPblup, SimulatedOneTraitEqualsDenseSolve) { expect_pblup_equals_direct(simulated(1, 1500, 300, 500, 11), 1e-8); }

TEST(SsblupPblup, SimulatedThreeTraitsMissingEqualsDenseSolve) {
  const auto d = simulated(3, 1200, 300, 500, 12);
  int64_t missing = 0;
  for (double v : d.rec.y) missing += std::isnan(v);
  ASSERT_GT(missing, 0);
  expect_pblup_equals_direct(d, 1e-8);
}

// Beyond dense_fixed_limit the fixed effects get a diagonal preconditioner: slower, same solution.
TEST(SsblupPblup, DiagonalFixedEffectPreconditionerSameSolution) {
  const auto d = simulated(3, 800, 100, 200, 13);
  single_step_options o;
  o.model = single_step_model::pblup;
  o.tol = 1e-28;
  const auto a = solve_single_step(executor(backend::cpu), d.ped, d.rec, d.vc, nullptr, o);
  o.dense_fixed_limit = 0;
  const auto b = solve_single_step(executor(backend::cpu), d.ped, d.rec, d.vc, nullptr, o);
  ASSERT_TRUE(a.pcg.converged && b.pcg.converged);
  EXPECT_LE(rel_diff(b.ebv, a.ebv), 1e-9);
  EXPECT_LE(rel_diff(estimated_betas(b), estimated_betas(a)), 1e-9);
  std::printf("dense fixed block: %lld iterations, diagonal: %lld\n", static_cast<long long>(a.pcg.iterations),
              static_cast<long long>(b.pcg.iterations));
}

// The diagonal that the preconditioner takes beyond dense_fixed_limit, made without the p × p block
// (51 GB at a national size), against that block's diagonal: the same additions in the same order,
// so the same bits; 3 traits with missing ones (several residual patterns), classes and a covariate.
TEST(SsblupRecords, FixedDiagonalIsTheDenseBlocksDiagonal) {
  const auto d = simulated(3, 800, 100, 200, 13);
  const detail::record_equations eq(d.ped, d.rec, d.vc, 2);
  const int64_t p = eq.fixed_count();
  const std::vector<double> block = eq.fixed_block(), diag = eq.fixed_diagonal();
  ASSERT_EQ(static_cast<int64_t>(diag.size()), p);
  ASSERT_GT(p, 10);
  for (int64_t i = 0; i < p; ++i) {
    EXPECT_EQ(diag[i], block[i * p + i]) << "fixed effect " << i;
    EXPECT_GT(diag[i], 0) << "fixed effect " << i;
  }
}

// pedigreemm's Holstein data: pedCowsR (6,547 animals), milk.csv (3,397 records of 1,359 cows);
// herd and lactation as classes, days in milk as covariate.
dataset milk(const std::string& ped_path, const std::string& records, int t) {
  dataset d;
  d.ped = read_pedigree_file(ped_path);
  if (t == 1) {
    d.rec = read_breeding_records(records, {"milk"}, {"herd", "lact"}, {"dim"});
    d.vc = {1, {1.0e6}, {2.0e6}};
  } else {
    d.rec = read_breeding_records(records, {"milk", "fat", "prot"}, {"herd", "lact"}, {"dim"});
    d.vc = {3, {1.0e6, 2.0e4, 1.5e4, 2.0e4, 900, 400, 1.5e4, 400, 500},
            {2.0e6, 3.0e4, 2.5e4, 3.0e4, 2500, 800, 2.5e4, 800, 1200}};
  }
  return d;
}

// The per-iteration observer (which `ssblup` uses to write PREFIX.iter.part while PCG runs) sees
// exactly the history the solve returns, with non-decreasing cumulative genotype seconds.
TEST(SsblupPcg, ObserverSeesEveryIteration) {
  const dataset d = simulated(1, 600, 150, 300, 31);
  single_step_genotypes g;
  g.genotypes = d.geno.view();
  g.animals = d.genotyped;
  single_step_options o;
  o.model = single_step_model::sssnpblup;
  o.tol = 1e-16;
  std::vector<pcg_iteration> seen;
  std::vector<double> gsec;
  o.on_iteration = [&](const pcg_iteration& h, double gs, double) {
    seen.push_back(h);
    gsec.push_back(gs);
  };
  const auto s = solve_single_step(executor(backend::cpu), d.ped, d.rec, d.vc, &g, o);
  ASSERT_TRUE(s.pcg.converged);
  ASSERT_EQ(seen.size(), s.pcg.history.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].iteration, s.pcg.history[i].iteration);
    EXPECT_EQ(seen[i].relative_residual, s.pcg.history[i].relative_residual);
    if (i > 0) { EXPECT_GE(gsec[i], gsec[i - 1]); }
  }
  EXPECT_GT(gsec.back(), 0.0);
}

TEST(SsblupPblup, MilkOneTraitEqualsDenseSolve) {
  PMX_REQUIRE_DATA(ped, "pedigreemm_milk/pedCowsR.csv");
  PMX_REQUIRE_DATA(rec, "pedigreemm_milk/milk.csv");
  expect_pblup_equals_direct(milk(ped, rec, 1), 1e-8);
}

TEST(SsblupPblup, MilkThreeTraitsMissingEqualsSparseDirectSolve) {
  PMX_REQUIRE_DATA(ped, "pedigreemm_milk/pedCowsR.csv");
  PMX_REQUIRE_DATA(rec, "pedigreemm_milk/milk.csv");
  // fat missing on every 4th record, protein on every 7th (never both: all-missing is skipped).
  std::ifstream in(rec);
  const std::string copy = test::work().path("milk3.csv");
  std::ofstream out(copy);
  std::string line;
  std::getline(in, line);
  out << line << "\n";
  for (int64_t r = 0; std::getline(in, line); ++r) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (r % 4 == 0) f[6] = "NA";
    else if (r % 7 == 0) f[7] = "NA";
    for (size_t i = 0; i < f.size(); ++i) out << (i ? "," : "") << f[i];
    out << "\n";
  }
  out.close();
  expect_pblup_equals_direct(milk(ped, copy, 3), 1e-8, direct::sparse);
}

// ---------------------------------------------------------------- genomic models
// Each model stopped when its estimated error is below 1e-12: the EBVs then agree to 1e-9 (at a
// fixed ‖r‖²/‖b‖² they need not: each model's equations have their own condition number).
void expect_genomic_models_agree(const dataset& d, double w) {
  const auto gb = solve(d, single_step_model::ssgblup, 1e-24, w, 1e-12);
  const auto G = oracle_grm(d.geno.view());
  const auto o = dense_mme_solve(d.ped, d.rec, d.vc, oracle_hinv(d.ped, d.genotyped, G, w));
  const double e0 = rel_diff(gb.ebv, o.ebv), f0 = rel_diff(estimated_betas(gb), o.beta);
  EXPECT_LE(e0, 1e-8) << "ssgblup EBV vs dense H-inverse MME";
  EXPECT_LE(f0, 1e-8) << "ssgblup fixed effects vs dense";
  std::printf("ssgblup t=%d: %lld iterations, EBV rel. diff vs dense %.2e, fixed %.2e\n", d.rec.traits_count(),
              static_cast<long long>(gb.pcg.iterations), e0, f0);
  for (auto m : {single_step_model::sssnpblup, single_step_model::ssgtablup}) {
    const auto s = solve(d, m, 1e-24, w, 1e-12);
    const double e = rel_diff(s.ebv, gb.ebv), f = rel_diff(estimated_betas(s), estimated_betas(gb));
    EXPECT_LE(e, 1e-9) << model_name(m) << " EBV vs ssgblup";
    EXPECT_LE(f, 1e-9) << model_name(m) << " fixed effects vs ssgblup";
    std::printf("%s t=%d: %lld iterations, EBV rel. diff vs ssgblup %.2e, fixed %.2e\n", model_name(m).c_str(),
                d.rec.traits_count(), static_cast<long long>(s.pcg.iterations), e, f);
    if (m == single_step_model::sssnpblup) {
      EXPECT_EQ(static_cast<int64_t>(s.snp.size()), d.geno.n_variants() * d.rec.traits_count());
    }
  }
}

TEST(SsblupGenomic, SimulatedOneTrait) { expect_genomic_models_agree(simulated(1, 1200, 300, 800, 21), 0.2); }

TEST(SsblupGenomic, SimulatedThreeTraitsMissing) { expect_genomic_models_agree(simulated(3, 1000, 250, 600, 22), 0.3); }

// synbreed cattle: real pedigree (1,929) and genotypes (500 bulls × 7,250 SNPs, 0.28 % missing);
// the package's artificial phenotypes of the bulls.
dataset cattle(int t) {
  dataset d;
  const std::string dir = std::string(PMX_SHARED_DATA) + "/synbreed_cattle/";
  d.ped = read_pedigree_file(dir + "cattle_pedigree.csv");
  plink_fileset fs(dir + "cattle");
  d.geno = fs.read_block(0, fs.n_variants());
  for (int64_t i = 0; i < fs.n_samples(); ++i) d.genotyped.push_back(d.ped.index(fs.sample(i).iid));
  // Records: Phenotype1, Phenotype2 and (3 traits) a third column made from them, with traits
  // missing in a fixed pattern; a class "group" (4 levels by ID) and an intercept.
  std::ifstream in(dir + "cattle_pheno_artificial.csv");
  const std::string path = test::work().path("cattle" + std::to_string(t) + ".csv");
  std::ofstream out(path);
  std::string line;
  std::getline(in, line);
  out << "id,group,P1,P2,P3\n";
  for (int64_t r = 0; std::getline(in, line); ++r) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    const double p1 = std::stod(f[1]), p2 = std::stod(f[2]);
    std::string s1 = f[1], s2 = f[2], s3 = std::to_string(0.3 * p1 + 0.05 * p2 + std::sin(r) * 5);
    if (t == 3 && r % 5 == 1) s1 = "NA";
    if (t == 3 && r % 3 == 2) s2 = "NA";
    if (t == 3 && r % 4 == 0) s3 = "NA";
    out << f[0] << ",g" << r % 4 << "," << s1 << "," << s2 << "," << s3 << "\n";
  }
  out.close();
  if (t == 1) {
    d.rec = read_breeding_records(path, {"P1"}, {"group"}, {});
    d.vc = {1, {60.0}, {90.0}};
  } else {
    d.rec = read_breeding_records(path, {"P1", "P2", "P3"}, {"group"}, {});
    d.vc = {3, {60, 100, 20, 100, 4000, 250, 20, 250, 30}, {90, 50, 10, 50, 2500, 80, 10, 80, 40}};
  }
  return d;
}

TEST(SsblupGenomic, CattleOneTrait) {
  PMX_REQUIRE_DATA(bed, "synbreed_cattle/cattle.bed");
  expect_genomic_models_agree(cattle(1), 0.2);
}

TEST(SsblupGenomic, CattleThreeTraitsMissing) {
  PMX_REQUIRE_DATA(bed, "synbreed_cattle/cattle.bed");
  expect_genomic_models_agree(cattle(3), 0.2);
}

// ---------------------------------------------------------------- input errors (library)
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const error& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

TEST(SsblupErrors, RecordOfAnimalNotInPedigree) {
  dataset d = simulated(1, 300, 50, 100, 31);
  d.rec.id[3] = "nobody";
  expect_error([&] { solve(d, single_step_model::pblup, 1e-12); }, {"simulated:", "'nobody'", "not in the pedigree"});
}

TEST(SsblupErrors, WOutOfRangeAndMissingGenotypes) {
  const dataset d = simulated(1, 300, 50, 100, 32);
  expect_error([&] { solve(d, single_step_model::sssnpblup, 1e-12, 0.0); }, {"0 < w < 1"});
  expect_error([&] { solve(d, single_step_model::ssgtablup, 1e-12, 1.0); }, {"0 < w < 1"});
  single_step_options o;
  o.model = single_step_model::ssgblup;
  expect_error([&] { solve_single_step(executor(backend::cpu), d.ped, d.rec, d.vc, nullptr, o); }, {"needs genotypes"});
}

TEST(SsblupErrors, ConfoundedFixedEffects) {
  dataset d = simulated(1, 300, 50, 100, 33);
  // a class identical to herd: its levels are confounded with herd's
  d.rec.classes.push_back("herd_copy");
  d.rec.level.push_back(d.rec.level[0]);
  expect_error([&] { solve(d, single_step_model::pblup, 1e-12); }, {"fixed effects are not estimable"});
}

// ---------------------------------------------------------------- the command line
namespace cli {

std::string slurp(const std::string& path) { return test::read_text(path); }

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> v;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// Column `c` (1-based) of every data line of a tab-separated output.
std::vector<double> column(const std::string& path, int c) {
  std::vector<double> v;
  auto ls = lines_of(path);
  for (size_t i = 1; i < ls.size(); ++i) {
    std::stringstream ss(ls[i]);
    std::string f;
    for (int k = 0; k < c; ++k) std::getline(ss, f, '\t');
    v.push_back(std::stod(f));
  }
  return v;
}

const std::string& simulated_files() {
  static const std::string prefix = [] {
    const std::string p = test::work().path("clisim");
    EXPECT_EQ(test::panoramix("simulate-pedigree --animals 1500 --founders 150 --genotyped 300 --variants 800 "
                              "--h2 0.3,0.4,0.2 --herds 8 --seed 5 --out " + p, p + ".simlog"), 0);
    return p;
  }();
  return prefix;
}

std::string ssblup_args(const std::string& sim, const std::string& model, const std::string& out) {
  return "ssblup --ped " + sim + ".ped --bfile " + sim + " --pheno " + sim + ".pheno --traits trait1,trait2,trait3 "
         "--class herd,lact --covar dim --vc " + sim + ".vc --model " + model + " --w 0.2 --solution-tol 1e-11 --threads 2 "
         "--out " + out;
}

TEST(SsblupCli, WritesOutputsAndLogAndModelsAgree) {
  const std::string sim = simulated_files();
  const std::string a = test::work().path("cli_snp"), b = test::work().path("cli_gblup");
  ASSERT_EQ(test::panoramix(ssblup_args(sim, "sssnpblup", a), a + ".out"), 0) << slurp(a + ".out");
  ASSERT_EQ(test::panoramix(ssblup_args(sim, "ssgblup", b), b + ".out"), 0) << slurp(b + ".out");
  for (const char* ext : {".sol", ".ebv", ".snp", ".iter", ".log"})
    EXPECT_TRUE(std::filesystem::exists(a + ext)) << a + ext;
  EXPECT_FALSE(std::filesystem::exists(b + ".snp"));
  EXPECT_FALSE(std::filesystem::exists(a + ".iter.part")) << "the progress file outlives the run";
  const auto ebv = lines_of(a + ".ebv");
  EXPECT_EQ(ebv.front(), "ID\ttrait1\ttrait2\ttrait3");
  EXPECT_EQ(ebv.size(), 1501u);
  EXPECT_EQ(lines_of(a + ".snp").size(), 801u);
  EXPECT_EQ(lines_of(a + ".sol").front(), "effect\tlevel\ttrait\tvalue");
  EXPECT_NE(slurp(a + ".log").find("converged"), std::string::npos);
  for (int c = 2; c <= 4; ++c) EXPECT_LE(rel_diff(column(a + ".ebv", c), column(b + ".ebv", c)), 1e-9) << "trait " << c - 1;
  EXPECT_NE(slurp(a + ".log").find("Estimated relative error of the solutions: "), std::string::npos);
}

// --freq with PLINK 2's .afreq of the same animals (`panoramix freq`: every .fam sample is a
// founder here) centres exactly as the default observed frequencies: same EBVs.
TEST(SsblupCli, FrequencyFileGivesTheSameCentring) {
  const std::string sim = simulated_files();
  const std::string f = test::work().path("cli_freq"), a = test::work().path("cli_snp_default"),
                    b = test::work().path("cli_snp_freq");
  ASSERT_EQ(test::panoramix("freq --bfile " + sim + " --out " + f, f + ".out"), 0) << slurp(f + ".out");
  const std::string args = ssblup_args(sim, "sssnpblup", a);
  ASSERT_EQ(test::panoramix(args, a + ".out"), 0) << slurp(a + ".out");
  const std::string args_b = std::string(args).replace(args.find("--out " + a), 6 + a.size(), "--out " + b);
  ASSERT_EQ(test::panoramix(args_b + " --freq " + f + ".afreq", b + ".out"), 0) << slurp(b + ".out");
  EXPECT_NE(slurp(b + ".log").find("centring by --freq"), std::string::npos);
  // .afreq holds 6 significant digits: the centring differs by that rounding, not more.
  EXPECT_LE(rel_diff(column(b + ".ebv", 2), column(a + ".ebv", 2)), 1e-6);
  EXPECT_LE(rel_diff(column(b + ".snp", 4), column(a + ".snp", 4)), 1e-6);
}

TEST(SsblupCli, InputErrors) {
  const std::string sim = simulated_files();
  const std::string o = test::work().path("cli_err");
  auto fails_with = [&](const std::string& args, const std::string& text) {
    EXPECT_EQ(test::panoramix(args, o + ".err"), 2) << args;  // 2: input error
    const std::string msg = slurp(o + ".err");
    EXPECT_NE(msg.find(text), std::string::npos) << msg;
  };
  std::string args = ssblup_args(sim, "ssgblup", o);
  // unknown trait / class column
  fails_with(std::string(args).replace(args.find("trait3"), 6, "trait9"), "no trait column 'trait9'");
  fails_with(std::string(args).replace(args.find("herd,lact"), 9, "herd,parity"), "no class column 'parity'");
  // VC of the wrong size and not positive definite
  const std::string vc1 = test::work().path("vc1.txt"), vc2 = test::work().path("vc2.txt");
  std::ofstream(vc1) << "genetic\n1\nresidual\n2\n";
  std::ofstream(vc2) << "genetic\n1 0 0\n0 1 2\n0 2 1\nresidual\n1 0 0\n0 1 0\n0 0 1\n";
  fails_with(std::string(args).replace(args.find(sim + ".vc"), sim.size() + 3, vc1), "expected 3 numbers");
  fails_with(std::string(args).replace(args.find(sim + ".vc"), sim.size() + 3, vc2), "not positive definite");
  // a record of an animal not in the pedigree
  const std::string ph = test::work().path("extra.pheno");
  {
    std::ofstream out(ph);
    out << slurp(sim + ".pheno") << "Z999 1 1 100 1.0 NA NA\n";
  }
  fails_with(std::string(args).replace(args.find(sim + ".pheno"), sim.size() + 6, ph), "'Z999' has a record but is not in the pedigree");
  // a genotyped animal not in the pedigree: the first .fam sample renamed
  const std::string geno = test::work().path("ghost");
  std::filesystem::copy_file(sim + ".bed", geno + ".bed", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(sim + ".bim", geno + ".bim", std::filesystem::copy_options::overwrite_existing);
  {
    std::ofstream out(geno + ".fam");
    bool first = true;
    for (const auto& l : lines_of(sim + ".fam")) {
      out << (first ? "GHOST1 GHOST1" + l.substr(l.find(' ', l.find(' ') + 1)) : l) << "\n";
      first = false;
    }
  }
  const std::string last = "GHOST1";
  const std::string short_args = std::string(args).replace(args.find("--bfile " + sim), sim.size() + 8, "--bfile " + geno);
  fails_with(short_args, "genotyped animal(s) not in the pedigree (" + last);
  EXPECT_EQ(test::panoramix(short_args + " --allow-unpedigreed", o + ".err"), 0) << slurp(o + ".err");
  EXPECT_NE(slurp(o + ".log").find("added to the pedigree as founders (" + last), std::string::npos);
}

}  // namespace cli
}  // namespace
}  // namespace pmx
