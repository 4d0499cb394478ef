// The cuda backend against the reference (or, where the reference is too slow, the cpu backend,
// itself checked against the reference in test_ops_backends.cpp): every case of
// crossprod_cases.hpp and table_products_cases.hpp (shared with the cpu backend's test), then what
// only the cuda backend has: tiny device-memory budgets that force tiling, outputs larger than
// the staging buffer downloaded in pieces, the host-side table products being the cpu ones, and
// compute_grm and the grm/ld commands end to end.
// Every test skips, saying why, when no GPU is visible (or the build has no CUDA backend).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "crossprod_cases.hpp"
#include "panoramix/error.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/ops/crossprod.hpp"
#include "panoramix/ops/table_products.hpp"
#include "panoramix/plink_write.hpp"
#include "table_products_cases.hpp"
#include "test_support.hpp"

using namespace pmx;
namespace xp = pmx::crossprod_cases;
namespace tp = pmx::table_products_cases;

namespace {

const executor cpu(backend::cpu, 4);

// The reference up to 150 M (rows × rows × columns, or multiply-adds), the cpu backend beyond.
constexpr int64_t reference_limit = 150'000'000;
const xp::oracle crossprod_oracle{reference_limit, &cpu};
const tp::oracle table_oracle{reference_limit, &cpu};

}  // namespace

TEST(CudaCrossprod, SymmetricEveryOutputMatchesReference) {
  PMX_REQUIRE_GPU();
  RecordProperty("cases", xp::every_symmetric_case(executor(backend::cuda, 4), crossprod_oracle));
}

TEST(CudaCrossprod, RectangularEveryOutputMatchesReference) {
  PMX_REQUIRE_GPU();
  RecordProperty("cases", xp::every_rectangular_case(executor(backend::cuda, 4), crossprod_oracle));
}

TEST(CudaCrossprod, SubsetsOfOutputsAndLeadingDimension) {
  PMX_REQUIRE_GPU();
  RecordProperty("cases", xp::every_subset_case(executor(backend::cuda, 4), crossprod_oracle));
}

TEST(CudaCrossprod, LongRows) {
  PMX_REQUIRE_GPU();
  RecordProperty("cases", xp::every_long_rows_case(executor(backend::cuda, 4), crossprod_oracle));
}

TEST(CudaCrossprod, SparsePairCountsMatchReference) {
  PMX_REQUIRE_GPU();
  RecordProperty("cases", xp::every_sparse_pairs_case(executor(backend::cuda, 4), crossprod_oracle));
}

TEST(CudaCrossprod, LargeOutputsDownloadInPieces) {
  PMX_REQUIRE_GPU();
  // 6000 x 6000 int32 = 144 MB per output: several 64 MB staging pieces, each cut to the lower
  // triangle's prefix for S and N.
  const executor gpu(backend::cuda, 4);
  const int64_t n = 6000, k = 96;
  const auto t = xp::sample_rows(n, k, 0.05, true, 11);
  const unsigned outs = xp::S | xp::N | xp::V;
  xp::expect_sums(gpu, xp::oracle_sums(cpu, t.view(), nullptr, outs), t.view(), nullptr, outs, n, 3, "6000 x 96");
}

TEST(CudaCrossprod, TinyMemoryBudgetForcesTiling) {
  PMX_REQUIRE_GPU();
  // 2 MiB: 256-row output tiles, 256-row plane groups and several column chunks.
  executor gpu(backend::cuda, 4);
  gpu.set_device_memory_budget(int64_t{2} << 20);
  {
    const int64_t n = 1000, k = 5000;
    const auto t = xp::sample_rows(n, k, 0.05, true, 5);
    xp::expect_sums(gpu, xp::oracle_sums(cpu, t.view(), nullptr, xp::symmetric_outputs), t.view(), nullptr,
                    xp::symmetric_outputs, n, 7, "symmetric 1000 x 5000 in 2 MiB");
    if (HasFatalFailure()) return;
  }
  {
    const int64_t ra = 700, rb = 600, k = 3000;
    const auto A = xp::sample_rows(ra, k, 0.05, true, 6), B = xp::sample_rows(rb, k, 0.05, true, 7);
    const auto b = B.view();
    const xp::planes want = xp::oracle_sums(cpu, A.view(), &b, xp::every_output);
    gpu.set_device_memory_budget(int64_t{3} << 20);
    xp::expect_sums(gpu, want, A.view(), &b, xp::every_output, rb, 0, "rectangular 700 x 600 over 3000 in 3 MiB");
    if (HasFatalFailure()) return;
  }
  {
    // The same through the tuning (PMX_CUDA_MEMORY_MB; the executor setting left at 0).
    const int64_t n = 600, k = 2000;
    const auto t = xp::sample_rows(n, k, 0.05, true, 8);
    tuning small;
    small.cuda_memory_mb = 2;
    xp::expect_sums(executor(backend::cuda, 4, small), xp::oracle_sums(cpu, t.view(), nullptr, xp::symmetric_outputs),
                    t.view(), nullptr, xp::symmetric_outputs, n, 0, "symmetric 600 x 2000, PMX_CUDA_MEMORY_MB=2");
    if (HasFatalFailure()) return;
  }
  {
    // Too small for even one 256 x 256 tile: a clear error, not a crash.
    gpu.set_device_memory_budget(64 << 10);
    const auto t = xp::sample_rows(300, 100, 0.05, true, 9);
    std::vector<int32_t> S(300 * 300, 0);
    EXPECT_THROW(crossprod_symmetric(gpu, t.view(), {.S = S.data(), .ld = 300}), unsupported_error);
  }
}

TEST(CudaTableProducts, EveryCaseMatchesReference) {
  PMX_REQUIRE_GPU();
  RecordProperty("cases", tp::every_case(executor(backend::cuda, 4), table_oracle));
}

TEST(CudaTableProducts, HostSideProductsAreTheCpuOnes) {
  PMX_REQUIRE_GPU();
  // table_rowsums and missing_crossprod of the cuda backend run the cpu kernels: identical results.
  const executor gpu(backend::cuda, 4);
  for (const tp::table_case& c : tp::cases()) {
    const tp::table_data d = tp::make_data(c);
    const int64_t n = c.n;
    const std::string what = tp::shape(c.n, c.k);
    std::vector<double> y1(n, 0), y2(n, 0);
    table_rowsums(cpu, d.g.view(), d.tables, y1);
    table_rowsums(gpu, d.g.view(), d.tables, y2);
    ASSERT_EQ(y1, y2) << what;
    std::vector<double> Y1(n * n, 0), Y2(n * n, 0), R1(n * n, 0), R2(n * n, 0);
    missing_crossprod(cpu, d.g.view(), d.tables, d.r, Y1.data(), R1.data(), n);
    missing_crossprod(gpu, d.g.view(), d.tables, d.r, Y2.data(), R2.data(), n);
    ASSERT_EQ(Y1, Y2) << what;
    ASSERT_EQ(R1, R2) << what;
  }
}

TEST(CudaTableProducts, LargeOutputDownloadsInPieces) {
  PMX_REQUIRE_GPU();
  const executor gpu(backend::cuda, 4);  // 3500 x 3500 doubles = 98 MB: two staging pieces
  const int64_t n = 3500, k = 40;
  const auto g = test::random_genotypes(n, k, 0.05, 79);
  const auto tab = tp::random_tables(k, 80);
  std::vector<double> want(n * n, -1), got(n * n, -1);
  table_crossprod(cpu, g.view(), tab, want.data(), n);
  table_crossprod(gpu, g.view(), tab, got.data(), n);
  tp::expect_crossprod_close(want, got, n, k, -1, "3500 x 40");
}

TEST(CudaTableProducts, TinyMemoryBudgetForcesTiling) {
  PMX_REQUIRE_GPU();
  executor gpu(backend::cuda, 4);
  gpu.set_device_memory_budget(int64_t{2} << 20);  // 256-row tiles, 256-variant chunks and panels
  const int64_t n = 1000, k = 700;
  const auto g = test::random_genotypes(n, k, 0.05, 77);
  const auto tab = tp::random_tables(k, 78);
  std::vector<double> want(n * n, 0), got(n * n, 0);
  table_crossprod(cpu, g.view(), tab, want.data(), n);
  table_crossprod(gpu, g.view(), tab, got.data(), n);
  tp::expect_crossprod_close(want, got, n, k, 0, "1000 x 700 in 2 MiB");
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
