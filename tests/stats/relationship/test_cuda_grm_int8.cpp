// The int8 tensor-core route of the weighted products under sample_sums on cuda (the standardised
// GRM's; src/ops/sample_sums/cuda_integer_products.cuh) against long-double oracles:
// - the op with C alone over several blocks and a flush in the middle, on standardised, VanRaden
//   and wide affine tables (weights from 2^-24 to 2^24: 16 digit positions, more than the device's
//   position sums, so sums are turned into doubles mid-chunk), n from 1 to 300, within the bound of
//   integer_weights.hpp, 2^-44 sqrt(D_i D_j) + 1e-13 A_ij; integer_route_variants() shows the
//   route was taken, and a block with missing calls takes the FP64 route and still adds in;
// - the lower triangle in several panels (n = 4,100: two), rows sampled against the oracle;
// - `compute_grm` on cuda against a long-double standardised GRM at test_grm's 1e-12 bar, without
//   missing calls (int8 route) and with them (FP64 route), and with PMX_TABLE_CROSSPROD=blas.
// Skipped, saying why, when no GPU is visible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "integer_route_cases.hpp"
#include "ops/sample_sums/integer_weights.hpp"
#include "ops/table_products/affine_table.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/sample_sums.hpp"
#include "panoramix/plink_files.hpp"
#include "test_support.hpp"

using namespace pmx;
using namespace pmx::integer_route_cases;

namespace {

executor cuda_with(tuning::route route) {
  tuning t;
  t.table_crossprod = route;
  return executor(backend::cuda, 4, t);
}

struct block {
  packed_genotypes g;
  std::vector<code_table> tables;
  bool has_missing;
};

// A block of standardised-style tables (`kind`) on g.
block make_block(packed_genotypes g, tables_kind kind, uint64_t seed, bool has_missing) {
  auto t = make_tables(g, kind, seed);
  return {std::move(g), std::move(t), has_missing};
}

// C (host, starting at 0.25) through the op on `e`, flushing after the first block and at the end.
std::vector<double> run_op(const executor& e, const std::vector<block>& blocks, int64_t n, int64_t* integer_variants) {
  std::vector<double> C(static_cast<size_t>(n * n), 0.25);
  sample_sums s(e, n, {.C = C.data(), .ld = n});
  for (size_t b = 0; b < blocks.size(); ++b) {
    s.add(blocks[b].g.view(), blocks[b].tables, {}, blocks[b].has_missing);
    if (b == 0) s.flush();
  }
  s.flush();
  *integer_variants = s.integer_route_variants();
  return C;
}

// Rows `rows` of C against the long-double sums over every block, within the bound.
void expect_within_bound(const std::vector<double>& C, const std::vector<block>& blocks, int64_t n,
                         const std::vector<int64_t>& rows, const std::string& what) {
  double worst = 0;
  for (int64_t i : rows) {
    for (int64_t j = 0; j <= i; ++j) {
      long double exact = 0.25L;
      double Di = 0, Dj = 0, A = 0;
      for (const block& b : blocks)
        for (int64_t l = 0; l < b.g.n_variants(); ++l) {
          const uint8_t ci = b.g.view().code(i, l), cj = b.g.view().code(j, l);
          exact += static_cast<long double>(b.tables[l][ci]) * b.tables[l][cj];
          kernels::affine_form f;
          ASSERT_TRUE(kernels::affine_form_of(b.tables[l], f));
          const int yi = f.y(ci), yj = f.y(cj);
          const double w = f.beta * f.beta;
          Di += w * yi * yi, Dj += w * yj * yj;
          A += (std::abs(f.alpha) + std::abs(f.beta) * yi) * (std::abs(f.alpha) + std::abs(f.beta) * yj);
        }
      const double tol = std::ldexp(std::sqrt(Di * Dj), -kernels::integer_weight_plan::weight_bits) + 1e-13 * A;
      const double err = std::abs(C[i * n + j] - static_cast<double>(exact));
      ASSERT_LE(err, tol) << what << " C(" << i << "," << j << ") = " << C[i * n + j] << " vs "
                          << static_cast<double>(exact);
      if (tol > 0) worst = std::max(worst, err / tol);
    }
    for (int64_t j = i + 1; j < n; ++j) ASSERT_EQ(C[i * n + j], 0.25) << what << ": upper triangle written";
  }
  std::printf("  %s: largest error / bound %.3g\n", what.c_str(), worst);
}

std::vector<int64_t> all_rows(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) r[i] = i;
  return r;
}

}  // namespace

TEST(CudaGrmInt8, OpMatchesLongDoubleWithinBound) {
  PMX_REQUIRE_GPU();
  const executor e = cuda_with(tuning::route::automatic);
  struct spec {
    int64_t n;
    std::vector<int64_t> sizes;
    tables_kind kind;
  };
  for (const spec& s : {spec{1, {1, 5}, tables_kind::standardized}, spec{5, {3, 64, 1}, tables_kind::standardized},
                        spec{33, {700, 129}, tables_kind::standardized}, spec{97, {250, 3000}, tables_kind::standardized},
                        spec{130, {300, 64}, tables_kind::vanraden}, spec{64, {900}, tables_kind::wide_affine},
                        spec{300, {150, 17}, tables_kind::standardized}}) {
    std::vector<block> blocks;
    int64_t k = 0;
    for (size_t b = 0; b < s.sizes.size(); ++b) {
      blocks.push_back(make_block(make_called_genotypes(s.n, s.sizes[b], 100 * s.n + b), s.kind, b + 1, false));
      k += s.sizes[b];
    }
    int64_t integer = 0;
    const auto C = run_op(e, blocks, s.n, &integer);
    const std::string what = std::to_string(s.n) + " x " + std::to_string(k) + " tables " + std::to_string(int(s.kind));
    EXPECT_EQ(integer, k) << what << ": every block on the int8 route";
    expect_within_bound(C, blocks, s.n, all_rows(s.n), what);
    if (HasFatalFailure()) return;
  }
}

TEST(CudaGrmInt8, BlockWithMissingCallsTakesFp64AndAddsIn) {
  PMX_REQUIRE_GPU();
  const int64_t n = 77;
  std::vector<block> blocks;
  blocks.push_back(make_block(make_called_genotypes(n, 300, 1), tables_kind::standardized, 1, false));
  // Missing calls, and a sample with none.
  blocks.push_back(make_block(make_genotypes(n, 200, 0.05, 2), tables_kind::standardized, 2, true));
  blocks.push_back(make_block(make_called_genotypes(n, 100, 3), tables_kind::standardized, 3, false));
  int64_t integer = 0;
  const auto C = run_op(cuda_with(tuning::route::automatic), blocks, n, &integer);
  EXPECT_EQ(integer, 400) << "the two blocks without missing calls";
  expect_within_bound(C, blocks, n, all_rows(n), "mixed blocks");
  int64_t none = -1;
  const auto D = run_op(cuda_with(tuning::route::blas), blocks, n, &none);
  EXPECT_EQ(none, 0) << "PMX_TABLE_CROSSPROD=blas keeps every block in FP64";
  expect_within_bound(D, blocks, n, all_rows(n), "mixed blocks, FP64");
}

TEST(CudaGrmInt8, SeveralPanels) {
  PMX_REQUIRE_GPU();
  const int64_t n = 4100;
  std::vector<block> blocks;
  blocks.push_back(make_block(make_called_genotypes(n, 96, 5), tables_kind::standardized, 5, false));
  int64_t integer = 0;
  const auto C = run_op(cuda_with(tuning::route::automatic), blocks, n, &integer);
  EXPECT_EQ(integer, 96);
  // Rows on both sides of the panel boundary (2,064), the first and the last.
  expect_within_bound(C, blocks, n, {0, 1, 1000, 2062, 2063, 2064, 2065, 3001, 4098, 4099}, "4100 x 96");
}

TEST(CudaGrmInt8, GrmMatchesLongDouble) {
  PMX_REQUIRE_GPU();
  const int64_t n = 90, k = 700;
  for (double missing : {0.0, 0.02}) {
    test::temp_dir dir;
    const packed_genotypes g = missing > 0 ? make_genotypes(n, k, missing, 9) : make_called_genotypes(n, k, 9);
    write_fileset(dir.path("d"), g);
    plink_fileset data(dir.path("d"));
    grm_options opt;
    opt.block_variants = 256;
    const std::vector<long double> want = standardized_grm(g);
    for (tuning::route r : {tuning::route::automatic, tuning::route::blas}) {
      const grm_result got = compute_grm(cuda_with(r), data, opt, nullptr);
      for (int64_t i = 0; i < n * n; ++i) {
        if (std::isnan(want[i])) {
          ASSERT_TRUE(std::isnan(got.G[i])) << i / n << "," << i % n;
          continue;
        }
        ASSERT_NEAR(got.G[i], static_cast<double>(want[i]), 1e-12)
            << "missing " << missing << " route " << int(r) << " G(" << i / n << "," << i % n << ")";
      }
    }
  }
}
