// A_gg⁻¹ from the CHOLMOD factor of A^{nn} against the inverse of the tabular A among the
// genotyped animals (long-double Gaussian elimination, test_support's ld_solve): Legarra et al.
// (2009), the synbreed cattle pedigree (500 genotyped bulls of 1,929 animals), an inbred simulated
// pedigree with isolated genotyped animals, all animals genotyped; t = 1 and t = 3; input errors.
// The sparse symmetric product against the dense product of the full matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "panoramix/error.hpp"
#include "panoramix/genotyped_a_inverse.hpp"
#include "panoramix/pedigree.hpp"
#include "a_inverse_cases.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

// The oracle: (A_gg)⁻¹ by long-double elimination of the tabular A among `g` (k × k row-major).
std::vector<double> oracle_inverse(const pedigree& ped, const std::vector<int64_t>& g) {
  const int64_t k = static_cast<int64_t>(g.size());
  const auto A = relationship_matrix(ped, g);
  std::vector<long double> M(A.begin(), A.end()), B(k * k, 0.0L);
  for (int64_t i = 0; i < k; ++i) B[i * k + i] = 1.0L;
  test::ld_solve(M, B, k, k);
  return std::vector<double>(B.begin(), B.end());
}

using test::max_abs;
using test::random_block;
using test::relative_error;

// Dense (row-major k×k) times X (k × t row-major).
std::vector<double> dense_times(const std::vector<double>& M, const std::vector<double>& X,
                                int64_t k, int64_t t) {
  std::vector<double> Y(k * t, 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j)
      for (int64_t c = 0; c < t; ++c) Y[i * t + c] += M[i * k + j] * X[j * t + c];
  return Y;
}

// dense() and apply() (t = 1 and 3) of both constructors against the oracle; returns the worst
// relative error seen.
double check_against_oracle(const pedigree& ped, const std::vector<int64_t>& g, double tol) {
  const int64_t k = static_cast<int64_t>(g.size());
  const auto ref = oracle_inverse(ped, g);
  const auto F = inbreeding(ped);
  genotyped_a_inverse from_ainv(a_inverse(ped, F), g, 2);
  genotyped_a_inverse from_ped(ped, F, g, 2);
  double worst = 0;
  // Each operator with its level-scheduled sweeps, then with cholmod_solve2.
  for (genotyped_a_inverse* op : {&from_ainv, &from_ped, &from_ainv, &from_ped}) {
    const bool second_pass = op->solve_levels() == 0 && op->nongenotyped() > 0;
    if (!second_pass && op->nongenotyped() > 0) { EXPECT_GT(op->solve_levels(), 0); }
    SCOPED_TRACE(second_pass ? "cholmod_solve2" : "level-scheduled sweeps");
    EXPECT_EQ(op->size(), k);
    EXPECT_EQ(op->genotyped(), g);
    const double e = relative_error(op->dense(), ref);
    EXPECT_LE(e, tol) << (op == &from_ainv ? "from A^-1" : "from the pedigree") << ", dense()";
    worst = std::max(worst, e);
    for (int64_t t : {1, 3}) {
      const auto X = random_block(k, t, 11 + t);
      std::vector<double> Y(k * t, -7.0);  // apply() overwrites, never accumulates
      op->apply(t, X.data(), Y.data());
      const double et = relative_error(Y, dense_times(ref, X, k, t));
      EXPECT_LE(et, tol) << "t = " << t;
      worst = std::max(worst, et);
    }
    op->use_cholmod_solve(true);
  }
  // The sub-pedigree of genotyped animals and ancestors never has more non-genotyped animals.
  EXPECT_LE(from_ped.nongenotyped(), from_ainv.nongenotyped());
  EXPECT_EQ(from_ainv.nongenotyped(), ped.size() - k);
  from_ainv.use_cholmod_solve(false);
  std::printf("    k = %lld of %lld animals: A^nn %lld x %lld (%lld nonzeros, factor %lld, %s, "
              "%.3f s, %d levels), pruned %lld; max relative error %.2e\n",
              static_cast<long long>(k), static_cast<long long>(ped.size()),
              static_cast<long long>(from_ainv.nongenotyped()),
              static_cast<long long>(from_ainv.nongenotyped()),
              static_cast<long long>(from_ainv.nongenotyped_nonzeros()),
              static_cast<long long>(from_ainv.factor_nonzeros()),
              from_ainv.supernodal() ? "supernodal" : "simplicial", from_ainv.factor_seconds(),
              from_ainv.solve_levels(), static_cast<long long>(from_ped.nongenotyped()), worst);
  return worst;
}

// Parents-first random pedigree: parents drawn from the `window` animals before each animal
// (small window = small population, inbred), each unknown with probability `unknown`.
pedigree random_pedigree(int64_t n, int64_t founders, int64_t window, double unknown,
                         uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<int64_t> sire(n, -1), dam(n, -1);
  for (int64_t i = founders; i < n; ++i) {
    const int64_t lo = std::max<int64_t>(0, i - window);
    auto pick = [&](int parity) {
      int64_t p;
      do p = lo + static_cast<int64_t>(u(rng) * (i - lo));
      while (p % 2 != parity);
      return p;
    };
    if (u(rng) >= unknown) sire[i] = pick(1);
    if (u(rng) >= unknown) dam[i] = pick(0);
  }
  return pedigree::from_indices(sire, dam);
}

// ---- published and real pedigrees -------------------------------------------------------------

TEST(GenotypedAInverse, Legarra2009) {
  PMX_REQUIRE_DATA(ped_file, "pedigree_textbook/Legara2009_pedigree.txt");
  std::vector<int64_t> sire, dam;
  {
    std::ifstream in(ped_file);
    int64_t s, d;
    while (in >> s >> d) {
      sire.push_back(s);
      dam.push_back(d);
    }
  }
  ASSERT_EQ(sire.size(), 17u);
  const pedigree ped = pedigree::from_indices(sire, dam);
  // Animals 9-12 of the paper are genotyped; also in another order (rows follow `genotyped`).
  check_against_oracle(ped, {8, 9, 10, 11}, 1e-12);
  check_against_oracle(ped, {11, 8, 10, 9}, 1e-12);
}

TEST(GenotypedAInverse, SynbreedCattle500Of1929) {
  PMX_REQUIRE_DATA(ped_file, "synbreed_cattle/cattle_pedigree.csv");
  PMX_REQUIRE_DATA(fam_file, "synbreed_cattle/cattle.fam");
  const pedigree ped = read_pedigree_file(ped_file);
  ASSERT_EQ(ped.size(), 1929);
  std::vector<int64_t> g;
  std::ifstream fam(fam_file);
  std::string fid, iid, rest;
  while (fam >> fid >> iid && std::getline(fam, rest)) g.push_back(ped.index(iid));
  ASSERT_EQ(g.size(), 500u);
  check_against_oracle(ped, g, 1e-10);
}

// ---- simulated pedigrees and edge cases -------------------------------------------------------

TEST(GenotypedAInverse, InbredSimulatedPedigreeWithIsolatedAnimals) {
  // 800 animals from 10 founders in a window of 20: heavily inbred. Genotyped: a random third,
  // founders among them, and isolated animals (no parents, no progeny: no relative known).
  const int64_t n = 800;
  pedigree base = random_pedigree(n, 10, 20, 0.05, 3);
  std::vector<int64_t> sire(base.sires()), dam(base.dams());
  for (int a = 0; a < 5; ++a) {  // isolated animals at the end
    sire.push_back(-1);
    dam.push_back(-1);
  }
  const pedigree ped = pedigree::from_indices(sire, dam);
  const auto F = inbreeding(ped);
  ASSERT_GT(*std::max_element(F.begin(), F.end()), 0.4);
  std::vector<int64_t> all(ped.size());
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), std::mt19937_64(9));
  std::vector<int64_t> g(all.begin(), all.begin() + 260);
  for (int64_t i : {int64_t(0), int64_t(3), n, n + 2, n + 4})
    if (std::find(g.begin(), g.end(), i) == g.end()) g.push_back(i);
  check_against_oracle(ped, g, 1e-10);
}

TEST(GenotypedAInverse, AllAnimalsGenotypedNeedNoFactor) {
  const pedigree ped = random_pedigree(300, 8, 40, 0.1, 5);
  std::vector<int64_t> g(ped.size());
  std::iota(g.begin(), g.end(), 0);
  std::shuffle(g.begin(), g.end(), std::mt19937_64(2));
  check_against_oracle(ped, g, 1e-10);
  const genotyped_a_inverse op(a_inverse(ped), g);
  EXPECT_EQ(op.nongenotyped(), 0);
  EXPECT_EQ(op.factor_nonzeros(), 0);
  // A_gg⁻¹ is then A⁻¹ itself, permuted: exactly its entries.
  const auto Ainv = a_inverse(ped);
  const auto D = op.dense();
  const int64_t k = ped.size();
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b) ASSERT_EQ(D[a * k + b], Ainv.at(g[a], g[b]));
}

TEST(GenotypedAInverse, OnlyIsolatedAnimalsGenotyped) {
  // Genotyped founders without progeny: A_gg = I, no coupling with A^{nn}.
  std::vector<int64_t> sire = {-1, -1, -1, 0, 0, -1, -1}, dam = {-1, -1, -1, 1, 1, -1, -1};
  const pedigree ped = pedigree::from_indices(sire, dam);
  check_against_oracle(ped, {6, 5, 2}, 1e-14);
}

TEST(GenotypedAInverse, ParallelSweepsMatchCholmodSolveOnALargerPedigree) {
  // A livestock-like pedigree (12 generations of 5,000: a_inverse_cases.hpp). The sweeps (1
  // and 3 threads: bit-identical) against cholmod_solve2 on the same factor.
  const test::typed_pedigree tp = test::livestock_pedigree(5000, 12, 12);
  const pedigree& ped = tp.ped;
  const std::vector<int64_t>& g = tp.genotyped;
  const auto Ainv = a_inverse(ped);
  genotyped_a_inverse one(Ainv, g, 1), three(Ainv, g, 3);
  ASSERT_GT(three.solve_levels(), 0);
  const int64_t k = static_cast<int64_t>(g.size());
  for (int64_t t : {1, 3}) {
    const auto X = random_block(k, t, 5 + t);
    std::vector<double> Y1(k * t), Y3(k * t), Yc(k * t);
    one.apply(t, X.data(), Y1.data());
    three.apply(t, X.data(), Y3.data());
    three.use_cholmod_solve(true);
    three.apply(t, X.data(), Yc.data());
    three.use_cholmod_solve(false);
    EXPECT_EQ(Y1, Y3) << "t = " << t;
    EXPECT_LE(relative_error(Y3, Yc), 1e-13) << "t = " << t;
  }
  std::printf("    k = %lld of %lld: A^nn %lld x %lld, %d levels\n", static_cast<long long>(k),
              static_cast<long long>(ped.size()), static_cast<long long>(three.nongenotyped()),
              static_cast<long long>(three.nongenotyped()), three.solve_levels());
}

TEST(GenotypedAInverse, MovedObjectStillApplies) {
  const pedigree ped = random_pedigree(200, 6, 30, 0.1, 8);
  const std::vector<int64_t> g = {199, 50, 120, 7, 180};
  genotyped_a_inverse a(a_inverse(ped), g, 1);
  const auto before = a.dense();
  genotyped_a_inverse b(std::move(a));
  EXPECT_EQ(b.dense(), before);
  genotyped_a_inverse c(a_inverse(ped), {1, 2}, 1);
  c = std::move(b);
  EXPECT_EQ(c.dense(), before);
  EXPECT_LE(relative_error(before, oracle_inverse(ped, g)), 1e-12);
}

TEST(GenotypedAInverse, InputErrors) {
  const pedigree ped = random_pedigree(50, 4, 10, 0.1, 1);
  const auto Ainv = a_inverse(ped);
  auto message = [&](std::vector<int64_t> g) {
    try {
      genotyped_a_inverse op(Ainv, std::move(g));
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({3, 7, 3}).find("listed twice"), std::string::npos) << message({3, 7, 3});
  EXPECT_NE(message({3, 50}).find("outside the pedigree of 50"), std::string::npos);
  EXPECT_NE(message({-1}).find("outside"), std::string::npos);
  EXPECT_THROW((genotyped_a_inverse(ped, {}, {4, 4})), input_error);
  // A "A⁻¹" whose non-genotyped block is indefinite: [[1, 2, 0], [2, 1, 0], [0, 0, 1]], 2 genotyped.
  sparse_symmetric bad;
  bad.n = 3;
  bad.row_start = {0, 1, 3, 4};
  bad.col = {0, 0, 1, 2};
  bad.value = {1.0, 2.0, 1.0, 1.0};
  try {
    genotyped_a_inverse op(bad, {2});
    ADD_FAILURE() << "no numeric_error";
  } catch (const numeric_error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

// ---- sparse symmetric product ------------------------------------------------------------------

TEST(SparseSymmetricMultiply, MatchesDenseProductOfTheFullMatrix) {
  for (int64_t n : {int64_t(1), int64_t(5), int64_t(333), int64_t(30000)}) {
    const pedigree ped = random_pedigree(n, std::min<int64_t>(n, 6), 50, 0.1, n);
    const auto S = a_inverse(ped);
    const sparse_symmetric_operator op(S);
    for (int64_t t : {1, 3, 10}) {
      const auto X = random_block(n, t, 100 + t);
      // Dense oracle over the stored lower triangle mirrored: Y_i = Σ_j S_ij X_j (long double).
      std::vector<long double> ref(n * t, 0.0L);
      for (int64_t r = 0; r < n; ++r)
        for (int64_t q = S.row_start[r]; q < S.row_start[r + 1]; ++q) {
          const int64_t c = S.col[q];
          for (int64_t j = 0; j < t; ++j) {
            ref[r * t + j] += static_cast<long double>(S.value[q]) * X[c * t + j];
            if (c != r) ref[c * t + j] += static_cast<long double>(S.value[q]) * X[r * t + j];
          }
        }
      std::vector<double> Y1(n * t, 9.0), Y2(n * t), Y3(n * t);
      op.apply(t, X.data(), Y1.data(), 1);
      op.apply(t, X.data(), Y2.data(), 2);
      symmetric_multiply(S, t, X.data(), Y3.data());
      EXPECT_EQ(Y1, Y2) << "thread count changed the result";
      EXPECT_EQ(Y1, Y3);
      double worst = 0, scale = 0;
      for (int64_t i = 0; i < n * t; ++i) {
        worst = std::max(worst, static_cast<double>(std::abs(Y1[i] - ref[i])));
        scale = std::max(scale, static_cast<double>(std::abs(ref[i])));
      }
      EXPECT_LE(worst, 1e-14 * scale * 8) << "n = " << n << ", t = " << t;
    }
    if (n <= 333) {  // and against an explicitly formed dense matrix
      std::vector<double> M(n * n);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) M[i * n + j] = S.at(i, j);
      const auto X = random_block(n, 3, 7);
      std::vector<double> Y(n * 3);
      op.apply(3, X.data(), Y.data());
      EXPECT_LE(relative_error(Y, dense_times(M, X, n, 3)), 1e-14);
    }
  }
}

}  // namespace
}  // namespace pmx
