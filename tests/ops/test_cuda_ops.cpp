// The cuda backend against the reference (or, where the reference is too slow, the cpu backend,
// itself checked against the reference in test_ops_backends.cpp): crossprod with every output,
// table_crossprod, tiny device-memory budgets that force tiling, and compute_grm end to end.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/table_products.hpp"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

const executor ref = executor::reference();
const executor cpu(backend::cpu, 4);

// The oracle for a product of this size: the reference where it is quick enough.
const executor& oracle(int64_t pairs_times_columns) { return pairs_times_columns <= 150'000'000 ? ref : cpu; }

struct sums {
  std::vector<int32_t> S, N, U, V, Ut, Vt;
  sums(int64_t rows, int64_t cols, int32_t init)
      : S(rows * cols, init), N(rows * cols, init), U(rows * cols, init), V(rows * cols, init),
        Ut(rows * cols, init), Vt(rows * cols, init) {}
  crossprod_outputs all(int64_t ld, bool transposed) {
    return {S.data(), N.data(), U.data(), V.data(), transposed ? Ut.data() : nullptr,
            transposed ? Vt.data() : nullptr, ld};
  }
};

// Sample-major rows (samples x variants) with 5 % missing, the adversarial variants of
// random_genotypes, and (n >= 3) one sample with every call missing.
packed_rows sample_rows(int64_t n, int64_t k, uint64_t seed) {
  auto g = test::random_genotypes(n, k, 0.05, seed);
  if (n >= 3)
    for (int64_t l = 0; l < k; ++l) g.set(n / 2, l, code_missing);
  return transpose_to_sample_major(g.view(), 4);
}

void expect_symmetric_equal(const sums& want, const sums& got, int64_t n, int32_t init, const std::string& what) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = i * n + j;
      if (j <= i) {
        ASSERT_EQ(want.S[at] + init, got.S[at]) << what << " S(" << i << "," << j << ")";
        ASSERT_EQ(want.N[at] + init, got.N[at]) << what << " N(" << i << "," << j << ")";
      } else {
        ASSERT_EQ(got.S[at], init) << what << ": upper triangle of S must stay untouched";
        ASSERT_EQ(got.N[at], init) << what << ": upper triangle of N must stay untouched";
      }
      ASSERT_EQ(want.U[at] + init, got.U[at]) << what << " U(" << i << "," << j << ")";
      ASSERT_EQ(want.V[at] + init, got.V[at]) << what << " V(" << i << "," << j << ")";
    }
}

void expect_rect_equal(const sums& want, const sums& got, const std::string& what) {
  ASSERT_EQ(want.S, got.S) << what;
  ASSERT_EQ(want.N, got.N) << what;
  ASSERT_EQ(want.U, got.U) << what;
  ASSERT_EQ(want.V, got.V) << what;
  ASSERT_EQ(want.Ut, got.Ut) << what;
  ASSERT_EQ(want.Vt, got.Vt) << what;
}

std::string shape(int64_t a, int64_t b, int64_t k) {
  return std::to_string(a) + "x" + std::to_string(b) + " over " + std::to_string(k);
}

}  // namespace

TEST(CudaCrossprod, SymmetricEveryOutputMatchesReference) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);
  for (int64_t n : {1, 3, 33, 127, 128, 129, 257, 1000})
    for (int64_t k : {1, 31, 255, 256, 257, 1000, 5000}) {
      const auto t = sample_rows(n, k, 17 * n + k);
      sums want(n, n, 0), got(n, n, 7);
      crossprod_symmetric(oracle(n * n * k), t.view(), want.all(n, false));
      crossprod_symmetric(gpu, t.view(), got.all(n, false));  // accumulates onto 7
      expect_symmetric_equal(want, got, n, 7, shape(n, n, k));
      if (HasFatalFailure()) return;
    }
}

TEST(CudaCrossprod, RectangularEveryOutputMatchesReference) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);
  for (int64_t ra : {1, 3, 33, 129, 1000})
    for (int64_t rb : {1, 31, 128, 257})
      for (int64_t k : {1, 255, 256, 1000, 5000}) {
        // Rows = variants (the LD orientation): .bed rows re-aligned to words.
        const auto a = test::random_genotypes(k, ra, 0.05, ra * 7 + k);
        const auto b = test::random_genotypes(k, rb, 0.05, rb * 11 + k + 1);
        const auto A = word_aligned_variant_rows(a.view(), 4), B = word_aligned_variant_rows(b.view(), 4);
        sums want(ra, rb, 0), got(ra, rb, 0);
        crossprod(oracle(ra * rb * k), A.view(), B.view(), want.all(rb, true));
        crossprod(gpu, A.view(), B.view(), got.all(rb, true));
        expect_rect_equal(want, got, shape(ra, rb, k));
        if (HasFatalFailure()) return;
      }
}

TEST(CudaCrossprod, SubsetsOfOutputsAndLeadingDimension) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);
  const int64_t ra = 70, rb = 300, k = 777, ld = 311;  // ld > rb: columns beyond rb untouched
  const auto A = sample_rows(ra, k, 1), B = sample_rows(rb, k, 2);
  // V without U, Vt without Ut, N alone, S alone: the products that feed them are shared.
  const std::vector<std::vector<int>> subsets = {{3}, {5}, {1}, {0}, {0, 1}, {2, 4}, {3, 5}};
  for (const auto& subset : subsets) {
    std::vector<std::vector<int32_t>> want(6, std::vector<int32_t>(ra * ld, -3)), got = want;
    crossprod_outputs w{}, g{};
    int32_t* crossprod_outputs::*field[6] = {&crossprod_outputs::S, &crossprod_outputs::N, &crossprod_outputs::U,
                                             &crossprod_outputs::V, &crossprod_outputs::Ut, &crossprod_outputs::Vt};
    for (int o : subset) w.*field[o] = want[o].data(), g.*field[o] = got[o].data();
    w.ld = g.ld = ld;
    crossprod(ref, A.view(), B.view(), w);
    crossprod(gpu, A.view(), B.view(), g);
    for (int o = 0; o < 6; ++o) ASSERT_EQ(want[o], got[o]) << "output " << o << " of subset starting " << subset[0];
  }
  // Symmetric with S only and with V only.
  const int64_t n = 300;
  std::vector<int32_t> s1(n * n, 1), s2(n * n, 1), v1(n * n, 2), v2(n * n, 2);
  crossprod_symmetric(ref, B.view(), {.S = s1.data(), .ld = n});
  crossprod_symmetric(gpu, B.view(), {.S = s2.data(), .ld = n});
  crossprod_symmetric(ref, B.view(), {.V = v1.data(), .ld = n});
  crossprod_symmetric(gpu, B.view(), {.V = v2.data(), .ld = n});
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(v1, v2);
}

TEST(CudaCrossprod, LongRowsOneChunk) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);
  const int64_t n = 9, k = 200'000;
  const auto t = sample_rows(n, k, 99);
  sums want(n, n, 0), got(n, n, 0);
  crossprod_symmetric(ref, t.view(), want.all(n, false));
  crossprod_symmetric(gpu, t.view(), got.all(n, false));
  expect_symmetric_equal(want, got, n, 0, "9 x 200000");
}

TEST(CudaCrossprod, LargeOutputsDownloadInPieces) {
  PMX_REQUIRE_GPU();
  // 6000 x 6000 int32 = 144 MB per output: several 64 MB staging pieces, each cut to the lower
  // triangle's prefix for S and N.
  const executor gpu(backend::cuda, 4);
  const int64_t n = 6000, k = 96;
  const auto t = sample_rows(n, k, 11);
  std::vector<int32_t> s1(n * n, 3), s2(n * n, 3), n1(n * n, 3), n2(n * n, 3), v1(n * n, 3), v2(n * n, 3);
  crossprod_symmetric(cpu, t.view(), {.S = s1.data(), .N = n1.data(), .V = v1.data(), .ld = n});
  crossprod_symmetric(gpu, t.view(), {.S = s2.data(), .N = n2.data(), .V = v2.data(), .ld = n});
  ASSERT_EQ(s1, s2);
  ASSERT_EQ(n1, n2);
  ASSERT_EQ(v1, v2);
}

TEST(CudaCrossprod, TinyMemoryBudgetForcesTiling) {
  PMX_REQUIRE_GPU();
  // 2 MiB: 256-row output tiles, 256-row plane groups and several column chunks.
  executor gpu(backend::cuda, 4);
  gpu.set_device_memory_budget(int64_t{2} << 20);
  {
    const int64_t n = 1000, k = 5000;
    const auto t = sample_rows(n, k, 5);
    sums want(n, n, 0), got(n, n, 7);
    crossprod_symmetric(cpu, t.view(), want.all(n, false));
    crossprod_symmetric(gpu, t.view(), got.all(n, false));
    expect_symmetric_equal(want, got, n, 7, "symmetric 1000 x 5000 in 2 MiB");
  }
  {
    const int64_t ra = 700, rb = 600, k = 3000;
    const auto A = sample_rows(ra, k, 6), B = sample_rows(rb, k, 7);
    sums want(ra, rb, 0), got(ra, rb, 0);
    crossprod(cpu, A.view(), B.view(), want.all(rb, true));
    gpu.set_device_memory_budget(int64_t{3} << 20);
    crossprod(gpu, A.view(), B.view(), got.all(rb, true));
    expect_rect_equal(want, got, "rectangular 700 x 600 over 3000 in 3 MiB");
  }
  {
    // The same through the tuning (PMX_CUDA_MEMORY_MB; the executor setting left at 0).
    const int64_t n = 600, k = 2000;
    const auto t = sample_rows(n, k, 8);
    sums want(n, n, 0), got(n, n, 0);
    crossprod_symmetric(cpu, t.view(), want.all(n, false));
    tuning small;
    small.cuda_memory_mb = 2;
    crossprod_symmetric(executor(backend::cuda, 4, small), t.view(), got.all(n, false));
    expect_symmetric_equal(want, got, n, 0, "symmetric 600 x 2000, PMX_CUDA_MEMORY_MB=2");
  }
  {
    // Too small for even one 256 x 256 tile: a clear error, not a crash.
    gpu.set_device_memory_budget(64 << 10);
    const auto t = sample_rows(300, 100, 9);
    std::vector<int32_t> S(300 * 300, 0);
    EXPECT_THROW(crossprod_symmetric(gpu, t.view(), {.S = S.data(), .ld = 300}), unsupported_error);
  }
}

namespace {
std::vector<code_table> random_tables(int64_t k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<code_table> tab(k);
  for (auto& t : tab) t = {nd(rng), 0.0, nd(rng), nd(rng)};
  return tab;
}

// |a - b| <= 1e-12 relative to the Cauchy-Schwarz scale sqrt(C_ii C_jj) of the entry.
void expect_gram_close(const std::vector<double>& want, const std::vector<double>& got, int64_t n, double init,
                       const std::string& what) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = i * n + j;
      if (j > i) {
        ASSERT_EQ(got[at], init) << what << ": upper triangle must stay untouched";
        continue;
      }
      const double scale = std::sqrt((want[i * n + i] - init) * (want[j * n + j] - init));
      ASSERT_NEAR(want[at], got[at], 1e-12 * scale) << what << " C(" << i << "," << j << ")";
    }
}
}  // namespace

TEST(CudaTableProducts, CrossprodMatchesReference) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);
  for (int64_t n : {1, 5, 33, 129, 301, 1000})
    for (int64_t k : {1, 33, 700, 2000}) {
      const auto g = test::random_genotypes(n, k, 0.08, 13 * n + k);
      const auto tab = random_tables(k, n + 3 * k);
      std::vector<double> want(n * n, 0.5), got(n * n, 0.5);
      table_crossprod(oracle(n * n * k / 2), g.view(), tab, want.data(), n);
      table_crossprod(gpu, g.view(), tab, got.data(), n);
      expect_gram_close(want, got, n, 0.5, shape(n, n, k));
      if (HasFatalFailure()) return;
      // The host-side kernels of the cuda backend are the cpu ones: identical results.
      std::vector<double> y1(n, 0), y2(n, 0), r(k, 1.5);
      table_rowsums(cpu, g.view(), tab, y1);
      table_rowsums(gpu, g.view(), tab, y2);
      ASSERT_EQ(y1, y2);
      if (n <= 301) {
        std::vector<double> Y1(n * n, 0), Y2(n * n, 0), R1(n * n, 0), R2(n * n, 0);
        missing_crossprod(cpu, g.view(), tab, r, Y1.data(), R1.data(), n);
        missing_crossprod(gpu, g.view(), tab, r, Y2.data(), R2.data(), n);
        ASSERT_EQ(Y1, Y2);
        ASSERT_EQ(R1, R2);
      }
    }
}

TEST(CudaTableProducts, LargeOutputDownloadsInPieces) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);  // 3500 x 3500 doubles = 98 MB: two staging pieces
  const int64_t n = 3500, k = 40;
  const auto g = test::random_genotypes(n, k, 0.05, 79);
  const auto tab = random_tables(k, 80);
  std::vector<double> want(n * n, -1), got(n * n, -1);
  table_crossprod(cpu, g.view(), tab, want.data(), n);
  table_crossprod(gpu, g.view(), tab, got.data(), n);
  expect_gram_close(want, got, n, -1, "3500 x 40");
}

TEST(CudaTableProducts, TinyMemoryBudgetForcesTiling) {
  PMX_REQUIRE_GPU();
  executor gpu(backend::cuda, 4);
  gpu.set_device_memory_budget(int64_t{2} << 20);  // 256-row tiles, 256-variant chunks and panels
  const int64_t n = 1000, k = 700;
  const auto g = test::random_genotypes(n, k, 0.05, 77);
  const auto tab = random_tables(k, 78);
  std::vector<double> want(n * n, 0), got(n * n, 0);
  table_crossprod(cpu, g.view(), tab, want.data(), n);
  table_crossprod(gpu, g.view(), tab, got.data(), n);
  expect_gram_close(want, got, n, 0, "1000 x 700 in 2 MiB");
}

namespace {
struct fileset {
  test::temp_dir dir;
  std::string prefix;
};

// n samples, k variants, 5 % missing (variant 0 all missing, variant 1 monomorphic).
void write_fileset(fileset& f, int64_t n, int64_t k, uint64_t seed) {
  const auto g = test::random_genotypes(n, k, 0.05, seed);
  std::vector<sample_record> s(n);
  for (int64_t i = 0; i < n; ++i) s[i] = {"f", "s" + std::to_string(i), "0", "0", 1, "-9"};
  std::vector<variant_record> v(k);
  for (int64_t l = 0; l < k; ++l) v[l] = {"1", "v" + std::to_string(l), 0, 100 * l + 1, "A", "C"};
  f.prefix = f.dir.path("data");
  write_plink_fileset(f.prefix, s, v, g.view());
}
}  // namespace

TEST(CudaGrm, MatchesCpuBothMethods) {
  PMX_REQUIRE_GPU();
  fileset f;
  const int64_t n = 403, k = 3001;
  write_fileset(f, n, k, 2024);
  plink_fileset data(f.prefix);
  for (grm_method method : {grm_method::standardized, grm_method::vanraden})
    for (int64_t block : {int64_t{1000}, int64_t{8192}}) {
      grm_options opt;
      opt.method = method;
      opt.block_variants = block;
      const grm_result a = compute_grm(executor(backend::cpu, 4), data, opt, nullptr);
      const grm_result b = compute_grm(executor(backend::cuda, 4), data, opt, nullptr);
      const std::string what = std::string(method == grm_method::standardized ? "standardized" : "vanraden") +
                               ", blocks of " + std::to_string(block);
      ASSERT_EQ(a.G.size(), b.G.size());
      ASSERT_EQ(a.N, b.N) << what << ": pair counts must be identical";
      for (size_t i = 0; i < a.G.size(); ++i)
        ASSERT_NEAR(a.G[i], b.G[i], 1e-12 * std::max(1.0, std::abs(a.G[i]))) << what << ", entry " << i;
    }
}

TEST(CudaGrm, CommandLineDeviceCuda) {
  PMX_REQUIRE_GPU();
  fileset f;
  write_fileset(f, 150, 900, 7);
  for (const std::string method : {"standardized", "vanraden"}) {
    const std::string common = "grm --method " + method + " --bfile " + f.prefix + " --threads 2";
    ASSERT_EQ(test::panoramix(common + " --device cpu --out " + f.dir.path("cpu")), 0);
    ASSERT_EQ(test::panoramix(common + " --device cuda --out " + f.dir.path("gpu")), 0);
    ASSERT_EQ(test::panoramix(common + " --device auto --out " + f.dir.path("auto")), 0);
    const auto a = test::read_doubles(f.dir.path("cpu") + ".rel.bin");
    const auto b = test::read_doubles(f.dir.path("gpu") + ".rel.bin");
    const auto c = test::read_doubles(f.dir.path("auto") + ".rel.bin");
    ASSERT_EQ(a.size(), size_t{150 * 150});
    ASSERT_EQ(b.size(), a.size());
    ASSERT_EQ(c, b) << "--device auto must pick cuda here";
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-12 * std::max(1.0, std::abs(a[i]))) << method;
    EXPECT_NE(test::read_text(f.dir.path("auto") + ".log").find("Backend: cuda"), std::string::npos);
  }
}

TEST(CudaLd, CommandLineDeviceCudaMatchesCpu) {
  PMX_REQUIRE_GPU();
  fileset f;
  write_fileset(f, 333, 700, 11);
  for (const std::string mode : {"--r2 square", "--r square", "--r2 --ld-window 20 --ld-window-r2 0"}) {
    const std::string common = "ld " + mode + " --bfile " + f.prefix + " --threads 2";
    ASSERT_EQ(test::panoramix(common + " --device cpu --out " + f.dir.path("cpu")), 0) << mode;
    ASSERT_EQ(test::panoramix(common + " --device cuda --out " + f.dir.path("gpu")), 0) << mode;
    const std::string ext = mode.find("square") != std::string::npos ? ".ld.bin" : ".ld";
    const std::string a = test::read_text(f.dir.path("cpu") + ext), b = test::read_text(f.dir.path("gpu") + ext);
    ASSERT_GT(a.size(), 1000u) << mode;
    EXPECT_TRUE(a == b) << mode << ": --device cuda must write the same bytes as --device cpu";
  }
}
