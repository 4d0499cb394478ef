// Cases of the genotype × dense products on operands split by samples over the ranks of a run
// (operand_samples::this_rank), shared by the cpu and cuda tests. Every rank builds the same data
// (fixed seeds), takes its own samples (samples_of_rank), and checks its rows of Y = Z·Λ and the
// summed W = Zᵀ·Λ̃ against the reference backend on the whole matrix, with the componentwise
// tolerance of the one-process tests (test_genotype_gemm.cpp): 1e-12·(Σ|terms| + |β·old|), the
// missing calls' term of the cpu's Zᵀ·Λ̃ included. W must
// also be the same bits on every rank. Collectives are called the same number of times on every
// rank whatever fails (failures are counted, never returned early from), so a failing rank does
// not leave the others waiting.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gemm_cases.hpp"
#include "panoramix/communicator.hpp"
#include "panoramix/executor_array.hpp"

namespace pmx::rank_split_cases {

struct shape {
  int64_t n, k, l;
  double missing;
  double beta;
};

inline std::string name(const shape& s) {
  return "n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) + " l=" + std::to_string(s.l) +
         " missing=" + std::to_string(s.missing) + (s.beta != 0 ? " beta" : "");
}

/// `in_exec_memory`: Y and W (and Λ, Λ̃) live in the executor's memory (device memory on cuda).
inline void check(const executor& exec, const shape& s, bool in_exec_memory, uint64_t seed) {
  const communicator& comm = exec.comm();
  const gemm_cases::data d = gemm_cases::make(s.n, s.k, s.l, s.missing, true, true, seed);
  const gemm_centring c{d.p, d.s};
  const sample_range mine = samples_of_rank(s.n, comm.rank(), comm.size());
  variant_major_view v = d.g.view();
  v.data += mine.first / 4;
  v.n_samples = mine.count;
  const int64_t ld_y = s.l + 1, ld_w = s.l + 2;

  // Old values for β ≠ 0 (the same on every rank for W; this rank's rows for Y).
  std::mt19937_64 rng(seed + 99);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> Y0(static_cast<size_t>(s.n * ld_y)), W0(static_cast<size_t>(s.k * ld_w));
  for (auto& x : Y0) x = s.beta != 0 ? u(rng) : gemm_cases::qnan;
  for (auto& x : W0) x = s.beta != 0 ? u(rng) : gemm_cases::qnan;

  // The oracle: the reference backend on every sample, and the tolerance from the terms.
  std::vector<double> Yr = Y0, Wr = W0;
  const executor ref = executor::reference();
  gemm(ref, d.g.view(), c, s.l, d.lambda.data(), d.ld_a, s.beta, Yr.data(), ld_y);
  gemm_transposed(ref, d.g.view(), c, s.l, d.lambda_t.data(), d.ld_b, s.beta, Wr.data(), ld_w);
  std::vector<long double> ty(static_cast<size_t>(s.n * s.l), 0), tw(static_cast<size_t>(s.k * s.l), 0);
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t j = 0; j < s.k; ++j) {
      // A missing call is 0 in Z, but the cpu's Zᵀ·Λ̃ (l ≥ 2) centres through the sum over every
      // sample: its documented bound adds m_j·|Λ̃_ic| for each, m_j = |s_j|·min(2p, |1−2p|, 2−2p).
      const long double sj = std::fabs(static_cast<long double>(d.s[j])), tp = 2.0L * d.p[j];
      const long double z = test::dosage(d.g, i, j) >= 0 ? std::fabs(gemm_cases::z_of(d, i, j))
                                                         : sj * std::min({std::fabs(tp), std::fabs(1 - tp), std::fabs(2 - tp)});
      for (int64_t q = 0; q < s.l; ++q) {
        if (test::dosage(d.g, i, j) >= 0) ty[i * s.l + q] += z * std::fabs(d.lambda[j * d.ld_a + q]);
        tw[j * s.l + q] += z * std::fabs(d.lambda_t[i * d.ld_b + q]);
      }
    }

  // This rank's products, in host or executor memory.
  const size_t y_count = static_cast<size_t>(mine.count * ld_y), w_count = W0.size();
  std::vector<double> Y(Y0.begin() + mine.first * ld_y, Y0.begin() + (mine.first + mine.count) * ld_y), W = W0;
  {
    gemm_operand op(exec, v, gemm_accuracy::componentwise, operand_samples::this_rank);
    const double* lambda_t_mine = d.lambda_t.data() + mine.first * d.ld_b;
    if (in_exec_memory) {
      executor_array<double> dy(exec, std::max<size_t>(y_count, 1)), dw(exec, w_count),
          dl(exec, d.lambda.size()), dlt(exec, std::max<size_t>(mine.count * d.ld_b, 1));
      if (y_count) dy.copy_from_host(Y.data(), 0, y_count);
      dw.copy_from_host(W.data(), 0, w_count);
      dl.copy_from_host(d.lambda.data(), 0, d.lambda.size());
      if (mine.count) dlt.copy_from_host(lambda_t_mine, 0, mine.count * d.ld_b);
      gemm(op, c, s.l, dl.data(), d.ld_a, s.beta, dy.data(), ld_y);
      gemm_transposed(op, c, s.l, dlt.data(), d.ld_b, s.beta, dw.data(), ld_w);
      if (y_count) dy.copy_to_host(Y.data(), 0, y_count);
      dw.copy_to_host(W.data(), 0, w_count);
    } else {
      gemm(op, c, s.l, d.lambda.data(), d.ld_a, s.beta, Y.data(), ld_y);
      gemm_transposed(op, c, s.l, lambda_t_mine, d.ld_b, s.beta, W.data(), ld_w);
    }
  }

  const std::string tag = name(s) + " rank " + std::to_string(comm.rank()) + "/" + std::to_string(comm.size()) +
                          (in_exec_memory ? " (executor memory)" : " (host memory)");
  auto count_outside = [&](const std::vector<double>& got, int64_t row0, const std::vector<double>& want,
                           const std::vector<long double>& terms, const std::vector<double>& old, int64_t rows,
                           int64_t ld, const char* what) {
    int64_t bad = 0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t q = 0; q < s.l; ++q) {
        const double g = got[r * ld + q], w = want[(row0 + r) * ld + q];
        const long double tol =
            1e-12L * (terms[(row0 + r) * s.l + q] + (s.beta != 0 ? std::fabs(s.beta * old[(row0 + r) * ld + q]) : 0));
        if (!(std::fabs(static_cast<long double>(g) - w) <= tol)) {
          if (bad++ == 0)
            ADD_FAILURE() << what << " " << tag << " (" << row0 + r << "," << q << ") got " << g << " want " << w;
        }
      }
    return bad;
  };
  EXPECT_EQ(count_outside(Y, mine.first, Yr, ty, Y0, mine.count, ld_y, "Z*L"), 0);
  EXPECT_EQ(count_outside(W, 0, Wr, tw, W0, s.k, ld_w, "Zt*L"), 0);

  // The same W bits on every rank (padding columns included: never written).
  std::vector<double> all(W.size() * comm.size());
  comm.all_gather(W.data(), static_cast<int64_t>(W.size() * sizeof(double)), all.data());
  for (int r = 0; r < comm.size(); ++r)
    EXPECT_EQ(std::memcmp(all.data() + r * W.size(), W.data(), W.size() * sizeof(double)), 0)
        << "W of rank " << r << " differs from rank " << comm.rank() << "'s: " << tag;
}

/// The shapes: a partial byte at the end, a rank with no samples when there are more ranks than
/// whole bytes (n = 6), missing calls from none to most, β = 0 and β ≠ 0, l = 1 and wider.
inline std::vector<shape> shapes() {
  return {{1001, 301, 3, 0.02, 0.0}, {1001, 301, 1, 0.0, 0.0}, {803, 130, 17, 0.3, -0.5},
          {6, 40, 2, 0.1, 0.0},      {517, 75, 8, 0.6, 2.0}};
}

}  // namespace pmx::rank_split_cases
