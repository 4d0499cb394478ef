// C API (include/panoramix/panoramix.h, libpanoramix.so): every entry point against the C++ library
// it wraps and against the reference backend (long-double oracle); bad input → the right status
// and a message naming the problem; per-thread messages; one handle used from several threads.
//
// Products are compared two ways: bit for bit with the C++ op called directly on the same genotypes
// and centring (the C API only moves data: layouts, leading dimensions, β, subsets), and with the
// reference backend within the componentwise bound of test_genotype_gemm.cpp,
// |got − ref| ≤ 1e-12 · (Σ |Z_ij Λ_jc| + |β Y0| [+ m_j Σ_{i missing} |Λ̃_ic| for Zᵀ with l ≥ 2]).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/ops/genotype_gemm.hpp"
#include "panoramix/panoramix.h"
#include "panoramix/plink_write.hpp"
#include "test_support.hpp"

using namespace pmx;

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// ---- RAII for the C objects ----------------------------------------------------------------
struct context_deleter {
  void operator()(pmx_context* c) const { pmx_context_destroy(c); }
};
struct genotypes_deleter {
  void operator()(pmx_genotypes* g) const { pmx_genotypes_destroy(g); }
};
using context_ptr = std::unique_ptr<pmx_context, context_deleter>;
using genotypes_ptr = std::unique_ptr<pmx_genotypes, genotypes_deleter>;

context_ptr make_context(int device = PMX_DEVICE_CPU, int threads = 2) {
  pmx_context* c = nullptr;
  EXPECT_EQ(pmx_context_create(&c), PMX_OK);
  EXPECT_EQ(pmx_context_set_device(c, device), PMX_OK) << pmx_context_last_error(c);
  EXPECT_EQ(pmx_context_set_threads(c, threads), PMX_OK);
  return context_ptr(c);
}

// ---- the test fileset: founders and nonfounders, both sexes, autosomes, X, Y and MT ---------
constexpr int64_t N = 77, K = 131;

struct fileset {
  std::string prefix;
  packed_genotypes g;
  std::vector<sample_record> samples;
  std::vector<variant_record> variants;
};

const fileset& data() {
  static const fileset f = [] {
    fileset d;
    d.prefix = test::work().path("capi");
    d.g = test::random_genotypes(N, K, 0.06, 2024);
    for (int64_t i = 0; i < N; ++i) {
      sample_record s;
      s.fid = "fam" + std::to_string(i % 5);
      s.iid = "id" + std::to_string(i);
      const bool founder = i % 7 != 3;
      s.father = founder ? "0" : "id0";
      s.mother = founder ? "0" : "id1";
      s.sex = static_cast<int>(i % 3);
      s.phenotype = "-9";
      d.samples.push_back(s);
    }
    const char* chroms[10] = {"1", "1", "2", "2", "3", "4", "5", "X", "Y", "MT"};
    for (int64_t j = 0; j < K; ++j) {
      d.variants.push_back(variant_record{chroms[j % 10], "rs" + std::to_string(j), 0.0, 1000 + j,
                                          std::string(1, 'A'), std::string(1, 'G')});
    }
    write_plink_fileset(d.prefix, d.samples, d.variants, d.g.view());
    return d;
  }();
  return f;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

genotypes_ptr open_all(pmx_context* ctx) {
  pmx_genotypes* g = nullptr;
  EXPECT_EQ(pmx_genotypes_open_bed(ctx, data().prefix.c_str(), nullptr, nullptr, &g), PMX_OK)
      << pmx_context_last_error(ctx);
  return genotypes_ptr(g);
}

std::vector<double> frequencies_of(pmx_genotypes* g) {
  int64_t k = 0;
  EXPECT_EQ(pmx_genotypes_dims(g, nullptr, &k), PMX_OK);
  std::vector<double> p(static_cast<size_t>(k));
  EXPECT_EQ(pmx_genotypes_get_frequencies(g, p.data(), k), PMX_OK) << pmx_genotypes_last_error(g);
  return p;
}

std::vector<double> scales_of(pmx_genotypes* g) {
  int64_t k = 0;
  EXPECT_EQ(pmx_genotypes_dims(g, nullptr, &k), PMX_OK);
  std::vector<double> s(static_cast<size_t>(k));
  EXPECT_EQ(pmx_genotypes_get_scaling(g, s.data(), k), PMX_OK) << pmx_genotypes_last_error(g);
  return s;
}

/// Same doubles, NaN equal to NaN.
void expect_same(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t j = 0; j < a.size(); ++j)
    EXPECT_TRUE(a[j] == b[j] || (std::isnan(a[j]) && std::isnan(b[j])))
        << what << " [" << j << "]: " << a[j] << " vs " << b[j];
}

/// The centring the op gets for p and s as the C API documents them: NaN p → p 0, s 0.
struct centring_arrays {
  std::vector<double> p, s;
  gemm_centring view() const { return {p, s}; }
};
centring_arrays op_centring(const std::vector<double>& p, const std::vector<double>& s) {
  centring_arrays c{p, s};
  for (size_t j = 0; j < p.size(); ++j)
    if (std::isnan(p[j])) c.p[j] = 0, c.s[j] = 0;
  return c;
}

// ---- dense matrices in either layout ------------------------------------------------------
struct dense {
  int64_t rows = 0, cols = 0, ld = 0;
  bool row_major = true;
  std::vector<double> a;
  double& at(int64_t r, int64_t c) { return a[row_major ? r * ld + c : r + c * ld]; }
  double at(int64_t r, int64_t c) const { return a[row_major ? r * ld + c : r + c * ld]; }
  /// The same matrix row-major with ld = cols.
  std::vector<double> packed_row_major() const {
    std::vector<double> out(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = at(r, c);
    return out;
  }
};

dense random_dense(int64_t rows, int64_t cols, bool row_major, int64_t pad, uint64_t seed) {
  dense d{rows, cols, (row_major ? cols : rows) + pad, row_major, {}};
  d.a.resize(static_cast<size_t>(d.ld * (row_major ? rows : cols)));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : d.a) v = u(rng);
  return d;
}

/// |got − ref| within the componentwise bound, for out = op(Z)·in + β·out0 on genotypes `g`.
void expect_within_bound(const variant_major_view& g, const centring_arrays& c, bool trans,
                         const dense& in, double beta, const dense& out0, const dense& got,
                         const std::vector<double>& ref, const std::string& what) {
  const int64_t n = g.n_samples, k = g.n_variants, l = in.cols;
  auto z = [&](int64_t i, int64_t j, bool& missing) {
    const int x = dosage_of_code(g.code(i, j));
    missing = x < 0;
    const double s = c.s.empty() ? 1.0 : c.s[j];
    return missing ? 0.0 : s * (x - 2 * c.p[j]);
  };
  int worst = 0;
  for (int64_t r = 0; r < got.rows; ++r)
    for (int64_t col = 0; col < l; ++col) {
      double terms = std::abs(beta * out0.at(r, col));
      if (!trans) {
        for (int64_t j = 0; j < k; ++j) {
          bool m;
          terms += std::abs(z(r, j, m) * in.at(j, col));
        }
      } else {
        const double two_p = 2 * c.p[r], s = c.s.empty() ? 1.0 : c.s[r];
        const double mj = std::abs(s) * std::min({two_p, std::abs(1 - two_p), 2 - two_p});
        for (int64_t i = 0; i < n; ++i) {
          bool m;
          const double zi = z(i, r, m);
          terms += m ? (l >= 2 ? mj * std::abs(in.at(i, col)) : 0.0) : std::abs(zi * in.at(i, col));
        }
      }
      const double diff = std::abs(got.at(r, col) - ref[r * l + col]);
      if (!(diff <= 1e-12 * terms) && worst++ < 5)
        ADD_FAILURE() << what << " (" << r << ", " << col << "): " << got.at(r, col) << " vs reference "
                      << ref[r * l + col] << ", bound " << 1e-12 * terms;
    }
}

/// Runs the C API product and the C++ ops (cpu: bit for bit; reference: within the bound).
#ifdef PMX_HAVE_CUDA
/// A device copy of a host vector (cuda handles take device pointers).
struct device_vector {
  double* p = nullptr;
  size_t size = 0;
  explicit device_vector(const std::vector<double>& host) : size(host.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), size * sizeof(double)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, host.data(), size * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~device_vector() { cudaFree(p); }
  std::vector<double> to_host() const {
    std::vector<double> host(size);
    EXPECT_EQ(cudaMemcpy(host.data(), p, size * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
};
#endif

enum placement { host_memory = 0, device_in = 1, device_out = 2, device_both = 3 };

/// Runs the C API product and the C++ ops: on a cpu handle, bit for bit with the cpu op; on every
/// handle, within the bound of the reference op. `where` puts in/out in device memory (cuda).
void check_product(pmx_genotypes* h, const variant_major_view& g, const centring_arrays& c, bool trans,
                   bool row_major, int64_t l, int64_t pad, double beta, uint64_t seed, const std::string& what,
                   int where = host_memory) {
  const int64_t n = g.n_samples, k = g.n_variants;
  const dense in = random_dense(trans ? n : k, l, row_major, pad, seed);
  const dense out0 = random_dense(trans ? k : n, l, row_major, pad + 1, seed + 1);
  dense got = out0;
  const int t = trans ? PMX_TRANS : PMX_NO_TRANS, layout = row_major ? PMX_ROW_MAJOR : PMX_COL_MAJOR;
  if (where == host_memory) {
    ASSERT_EQ(pmx_genotypes_multiply(h, t, layout, l, in.a.data(), in.ld, beta, got.a.data(), got.ld), PMX_OK)
        << what << ": " << pmx_genotypes_last_error(h);
  } else {
#ifdef PMX_HAVE_CUDA
    device_vector din(in.a), dout(got.a);
    const double* x = where & device_in ? din.p : in.a.data();
    double* y = where & device_out ? dout.p : got.a.data();
    ASSERT_EQ(pmx_genotypes_multiply(h, t, layout, l, x, in.ld, beta, y, got.ld), PMX_OK)
        << what << ": " << pmx_genotypes_last_error(h);
    if (where & device_out) got.a = dout.to_host();
#else
    FAIL() << "device memory without CUDA";
#endif
  }

  // Padding (rows or columns past the matrix inside the leading dimension) untouched.
  for (int64_t r = 0; r < (row_major ? got.rows : l); ++r)
    for (int64_t t = (row_major ? l : got.rows); t < got.ld; ++t)
      ASSERT_EQ(got.a[r * got.ld + t], out0.a[r * got.ld + t]) << what << ": padding written";

  const auto x = in.packed_row_major();
  int device = -1;
  ASSERT_EQ(pmx_genotypes_device(h, &device), PMX_OK);
  if (device == PMX_DEVICE_CPU) {
    auto expected = out0.packed_row_major();
    const executor cpu(backend::cpu, 2);
    if (trans) gemm_transposed(cpu, g, c.view(), l, x.data(), l, beta, expected.data(), l);
    else gemm(cpu, g, c.view(), l, x.data(), l, beta, expected.data(), l);
    const auto got_packed = got.packed_row_major();
    for (size_t e = 0; e < expected.size(); ++e)
      ASSERT_EQ(got_packed[e], expected[e]) << what << ": differs from the C++ op at " << e;
  }

  auto ref = out0.packed_row_major();
  if (trans) gemm_transposed(executor::reference(), g, c.view(), l, x.data(), l, beta, ref.data(), l);
  else gemm(executor::reference(), g, c.view(), l, x.data(), l, beta, ref.data(), l);
  expect_within_bound(g, c, trans, in, beta, out0, got, ref, what);
}

/// Status `status` and a message that contains every one of `words`.
#define EXPECT_FAILS(call, status, message_of, ...)                                        \
  do {                                                                                     \
    const int st_ = (call);                                                                \
    EXPECT_EQ(st_, status) << #call << " gave " << pmx_status_name(st_) << ": " << message_of; \
    const std::string msg_ = message_of;                                                   \
    for (const std::string& w_ : std::vector<std::string>{__VA_ARGS__})                     \
      EXPECT_NE(msg_.find(w_), std::string::npos) << "message of " #call " lacks '" << w_     \
                                                  << "': " << msg_;                        \
  } while (0)

}  // namespace

// ---- version, status ------------------------------------------------------------------------

TEST(CapiVersion, MatchesHeaderAndBuild) {
  const std::string expected = std::to_string(PMX_VERSION_MAJOR) + "." + std::to_string(PMX_VERSION_MINOR) +
                               "." + std::to_string(PMX_VERSION_PATCH);
  EXPECT_EQ(std::string(pmx_version()), expected);
  EXPECT_EQ(std::string(pmx_version()), PMX_VERSION);  // the CMake project version
  EXPECT_EQ(pmx_abi_version(), PMX_ABI_VERSION);
}

TEST(CapiVersion, StatusNamesAndStrings) {
  const int codes[] = {PMX_OK, PMX_E_NULL_ARGUMENT, PMX_E_INVALID_ARGUMENT, PMX_E_BAD_INPUT, PMX_E_FILE,
                       PMX_E_UNSUPPORTED, PMX_E_STATE, PMX_E_NO_MEMORY, PMX_E_INTERNAL};
  for (int c : codes) {
    EXPECT_EQ(std::string(pmx_status_name(c)).rfind("PMX_", 0), 0u) << c;
    EXPECT_STRNE(pmx_status_string(c), "unknown status code") << c;
  }
  EXPECT_STREQ(pmx_status_name(PMX_E_BAD_INPUT), "PMX_E_BAD_INPUT");
  EXPECT_STREQ(pmx_status_name(-999), "unknown status");
  EXPECT_STREQ(pmx_status_string(12345), "unknown status code");
}

// ---- context ----------------------------------------------------------------------------------

TEST(CapiContext, CreateSetGetDestroy) {
  EXPECT_EQ(pmx_context_create(nullptr), PMX_E_NULL_ARGUMENT);
  pmx_context_destroy(nullptr);  // accepted
  EXPECT_STREQ(pmx_context_last_error(nullptr), "");
  auto ctx = make_context(PMX_DEVICE_REFERENCE, 3);
  int device = -1, threads = -1;
  EXPECT_EQ(pmx_context_get_device(ctx.get(), &device), PMX_OK);
  EXPECT_EQ(device, PMX_DEVICE_REFERENCE);
  EXPECT_EQ(pmx_context_get_threads(ctx.get(), &threads), PMX_OK);
  EXPECT_EQ(threads, 3);
  EXPECT_EQ(pmx_context_set_threads(ctx.get(), 0), PMX_OK);
  EXPECT_EQ(pmx_context_get_threads(ctx.get(), &threads), PMX_OK);
  EXPECT_GE(threads, 1);  // all hardware threads
  EXPECT_EQ(pmx_context_set_device(ctx.get(), PMX_DEVICE_AUTO), PMX_OK);
  EXPECT_EQ(pmx_context_get_device(ctx.get(), &device), PMX_OK);
  EXPECT_EQ(device, cuda_available() ? PMX_DEVICE_CUDA : PMX_DEVICE_CPU);  // resolved
  EXPECT_EQ(pmx_context_set_device_memory(ctx.get(), int64_t{1} << 30), PMX_OK);
  EXPECT_STREQ(pmx_context_last_error(ctx.get()), "");
}

TEST(CapiContext, BadArguments) {
  auto ctx = make_context();
  pmx_context* c = ctx.get();
  EXPECT_FAILS(pmx_context_set_device(c, 7), PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c),
               "pmx_context_set_device", "device 7");
  EXPECT_FAILS(pmx_context_get_device(c, nullptr), PMX_E_NULL_ARGUMENT, pmx_context_last_error(c), "device");
  EXPECT_FAILS(pmx_context_get_threads(c, nullptr), PMX_E_NULL_ARGUMENT, pmx_context_last_error(c), "threads");
  EXPECT_FAILS(pmx_context_set_device_memory(c, -1), PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c),
               "bytes", "-1");
  EXPECT_EQ(pmx_context_set_device(nullptr, PMX_DEVICE_CPU), PMX_E_NULL_ARGUMENT);
  if (!cuda_available())
    EXPECT_FAILS(pmx_context_set_device(c, PMX_DEVICE_CUDA), PMX_E_UNSUPPORTED, pmx_context_last_error(c),
                 "PMX_DEVICE_CUDA");
  // A success clears the thread's message.
  EXPECT_EQ(pmx_context_set_threads(c, 2), PMX_OK);
  EXPECT_STREQ(pmx_context_last_error(c), "");
}

TEST(CapiContext, MessagesArePerThread) {
  auto ctx = make_context();
  pmx_context* c = ctx.get();
  ASSERT_NE(pmx_context_set_device(c, 42), PMX_OK);
  std::string other;
  std::thread t([&] {
    other = pmx_context_last_error(c);  // nothing failed on this thread
    EXPECT_NE(pmx_context_set_device_memory(c, -5), PMX_OK);
  });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(pmx_context_last_error(c)).find("device 42"), std::string::npos)
      << pmx_context_last_error(c);
}

// ---- handles from a .bed fileset --------------------------------------------------------------

TEST(CapiGenotypes, OpenBedDimsIndicesDevice) {
  auto ctx = make_context();
  auto h = open_all(ctx.get());
  ASSERT_TRUE(h);
  int64_t n = 0, k = 0;
  EXPECT_EQ(pmx_genotypes_dims(h.get(), &n, &k), PMX_OK);
  EXPECT_EQ(n, N);
  EXPECT_EQ(k, K);
  std::vector<int64_t> si(N), vi(K);
  EXPECT_EQ(pmx_genotypes_sample_indices(h.get(), si.data(), N), PMX_OK);
  EXPECT_EQ(pmx_genotypes_variant_indices(h.get(), vi.data(), K), PMX_OK);
  for (int64_t i = 0; i < N; ++i) EXPECT_EQ(si[i], i);
  for (int64_t j = 0; j < K; ++j) EXPECT_EQ(vi[j], j);
  int device = -1;
  EXPECT_EQ(pmx_genotypes_device(h.get(), &device), PMX_OK);
  EXPECT_EQ(device, PMX_DEVICE_CPU);
  pmx_genotypes_destroy(nullptr);  // accepted
  EXPECT_STREQ(pmx_genotypes_last_error(nullptr), "");
}

TEST(CapiGenotypes, FrequenciesArePlinkFreq) {
  // The C++ freq command's numbers (founders; males haploid on X/Y; MT haploid), and with
  // nonfounders; bit for bit, NaN where nothing is counted.
  const plink_fileset files(data().prefix);
  auto ctx = make_context();
  auto h = open_all(ctx.get());
  for (int nonfounders : {0, 1}) {
    frequency_options opt;
    opt.nonfounders = nonfounders;
    const auto expected = compute_allele_frequencies(executor(backend::cpu, 2), files, opt, nullptr);
    ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), nonfounders, 0), PMX_OK) << pmx_genotypes_last_error(h.get());
    expect_same(frequencies_of(h.get()), expected.a1, "p, nonfounders " + std::to_string(nonfounders));
  }
  // Another chromosome set: with 2 autosomes, "3".."5" are X, Y, XY here.
  frequency_options opt;
  opt.chromosomes = chromosome_set{2};
  const auto expected = compute_allele_frequencies(executor(backend::cpu, 2), files, opt, nullptr);
  ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), 0, 2), PMX_OK);
  expect_same(frequencies_of(h.get()), expected.a1, "p, 2 autosomes");
  EXPECT_TRUE(std::isnan(frequencies_of(h.get())[0]));  // variant 0 has no call
}

TEST(CapiGenotypes, ProductsAllLayoutsAndScalings) {
  auto ctx = make_context();
  auto h = open_all(ctx.get());
  const variant_major_view g = data().g.view();
  ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), 0, 0), PMX_OK);
  const auto p = frequencies_of(h.get());

  // No scaling: s = 1 except where p is NaN.
  std::vector<double> ones(K, 1.0);
  expect_same(scales_of(h.get()), op_centring(p, ones).s, "s (none)");
  uint64_t seed = 1;
  for (bool trans : {false, true})
    for (bool row_major : {true, false})
      for (int64_t l : {1, 2, 5, 64})
        for (double beta : {0.0, -0.75}) {
          const std::string what = std::string(trans ? "Z'L" : "ZL") + (row_major ? " row" : " col") +
                                   " l=" + std::to_string(l) + " beta=" + std::to_string(beta);
          check_product(h.get(), g, op_centring(p, ones), trans, row_major, l, l % 3, beta, ++seed, what);
        }

  // Standardized: 1/sqrt(2p(1-p)), 0 for monomorphic variants and NaN p.
  ASSERT_EQ(pmx_genotypes_set_scaling(h.get(), PMX_SCALE_STANDARDIZE, nullptr, 0), PMX_OK);
  std::vector<double> s_std(K);
  for (int64_t j = 0; j < K; ++j) {
    const double v = 2 * p[j] * (1 - p[j]);
    s_std[j] = v > 0 ? 1 / std::sqrt(v) : 0.0;
  }
  const auto c_std = op_centring(p, s_std);
  expect_same(scales_of(h.get()), c_std.s, "s (standardized)");
  EXPECT_EQ(scales_of(h.get())[1], 0.0);  // variant 1 is monomorphic
  for (bool trans : {false, true})
    check_product(h.get(), g, c_std, trans, false, 7, 2, 0.5, ++seed, trans ? "Z'L std" : "ZL std");

  // User scales and user frequencies (one undefined).
  std::vector<double> s_user(K), p_user(K);
  for (int64_t j = 0; j < K; ++j) s_user[j] = 0.5 + 0.01 * j, p_user[j] = 0.1 + 0.8 * j / K;
  p_user[5] = nan_v;
  ASSERT_EQ(pmx_genotypes_set_scaling(h.get(), PMX_SCALE_USER, s_user.data(), K), PMX_OK);
  ASSERT_EQ(pmx_genotypes_set_frequencies(h.get(), p_user.data(), K), PMX_OK);
  expect_same(frequencies_of(h.get()), p_user, "p (set)");
  const auto c_user = op_centring(p_user, s_user);
  expect_same(scales_of(h.get()), c_user.s, "s (user)");
  for (bool trans : {false, true})
    check_product(h.get(), g, c_user, trans, true, 3, 0, 1.0, ++seed, trans ? "Z'L user" : "ZL user");

  // l = 0 touches nothing, even with NULL matrices.
  EXPECT_EQ(pmx_genotypes_multiply(h.get(), PMX_NO_TRANS, PMX_ROW_MAJOR, 0, nullptr, 1, 0.0, nullptr, 1), PMX_OK);
}

TEST(CapiGenotypes, ReferenceDeviceHandle) {
  auto ctx = make_context(PMX_DEVICE_REFERENCE, 1);
  auto h = open_all(ctx.get());
  ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), 1, 0), PMX_OK);
  const auto c = op_centring(frequencies_of(h.get()), std::vector<double>(K, 1.0));
  const dense lam = random_dense(K, 4, true, 0, 99);
  std::vector<double> got(N * 4), ref(N * 4);
  ASSERT_EQ(pmx_genotypes_multiply(h.get(), PMX_NO_TRANS, PMX_ROW_MAJOR, 4, lam.a.data(), 4, 0.0, got.data(), 4),
            PMX_OK);
  gemm(executor::reference(), data().g.view(), c.view(), 4, lam.a.data(), 4, 0.0, ref.data(), 4);
  EXPECT_EQ(got, ref);
}

TEST(CapiGenotypes, IndexSubsetsKeepFilesAndBytesAgree) {
  const std::vector<int64_t> keep = {0, 2, 3, 8, 13, 21, 34, 50, 55, 76};
  std::vector<int64_t> extract;
  for (int64_t j = 1; j < K; j += 3) extract.push_back(j);
  auto ctx = make_context();
  const auto& d = data();

  pmx_genotypes* raw = nullptr;
  ASSERT_EQ(pmx_genotypes_open_bed_subset(ctx.get(), d.prefix.c_str(), keep.data(), int64_t(keep.size()),
                                          extract.data(), int64_t(extract.size()), &raw),
            PMX_OK)
      << pmx_context_last_error(ctx.get());
  genotypes_ptr by_index(raw);

  // The same subsets as PLINK --keep / --extract files.
  std::string keep_text = "#IID\n", extract_text;
  for (int64_t i : keep) keep_text += d.samples[i].iid + "\n";
  keep_text += "not_in_data\n";  // ignored, as PLINK does
  for (int64_t j : extract) extract_text += d.variants[j].id + "\n";
  const std::string keep_path = test::work().path("capi_keep.txt"), extract_path = test::work().path("capi_extract.txt");
  write_text(keep_path, keep_text);
  write_text(extract_path, extract_text);
  ASSERT_EQ(pmx_genotypes_open_bed(ctx.get(), d.prefix.c_str(), keep_path.c_str(), extract_path.c_str(), &raw),
            PMX_OK)
      << pmx_context_last_error(ctx.get());
  genotypes_ptr by_file(raw);

  // And from the bytes in memory, with and without the magic bytes.
  const std::string bed = file_bytes(d.prefix + ".bed");
  ASSERT_EQ(pmx_genotypes_from_bed_bytes(ctx.get(), bed.data(), int64_t(bed.size()), PMX_BED_WITH_MAGIC, N, K,
                                         keep.data(), int64_t(keep.size()), extract.data(),
                                         int64_t(extract.size()), &raw),
            PMX_OK)
      << pmx_context_last_error(ctx.get());
  genotypes_ptr by_bytes(raw);
  ASSERT_EQ(pmx_genotypes_from_bed_bytes(ctx.get(), bed.data() + 3, int64_t(bed.size()) - 3, PMX_BED_ROWS_ONLY,
                                         N, K, keep.data(), int64_t(keep.size()), extract.data(),
                                         int64_t(extract.size()), &raw),
            PMX_OK);
  genotypes_ptr by_rows(raw);

  const packed_genotypes sub = subset(d.g.view(), keep, extract);
  for (pmx_genotypes* h : {by_index.get(), by_file.get(), by_bytes.get(), by_rows.get()}) {
    int64_t n = 0, k = 0;
    ASSERT_EQ(pmx_genotypes_dims(h, &n, &k), PMX_OK);
    ASSERT_EQ(n, int64_t(keep.size()));
    ASSERT_EQ(k, int64_t(extract.size()));
    std::vector<int64_t> si(n), vi(k);
    ASSERT_EQ(pmx_genotypes_sample_indices(h, si.data(), n), PMX_OK);
    ASSERT_EQ(pmx_genotypes_variant_indices(h, vi.data(), k), PMX_OK);
    EXPECT_EQ(si, keep);
    EXPECT_EQ(vi, extract);
    ASSERT_EQ(pmx_genotypes_compute_frequencies(h, 1, 0), PMX_OK);
    ASSERT_EQ(pmx_genotypes_set_scaling(h, PMX_SCALE_STANDARDIZE, nullptr, 0), PMX_OK);
  }
  // Frequencies: the fileset handles follow PLINK's rules on the kept set (C++ with the same
  // files); the bytes handles have no .fam/.bim: all diploid.
  plink_fileset files(d.prefix);
  files.keep_samples(keep_path);
  files.extract_variants(extract_path);
  frequency_options opt;
  opt.nonfounders = true;
  const auto expected = compute_allele_frequencies(executor(backend::cpu, 2), files, opt, nullptr);
  expect_same(frequencies_of(by_index.get()), expected.a1, "p by index");
  expect_same(frequencies_of(by_file.get()), expected.a1, "p by keep/extract files");
  std::vector<double> diploid(extract.size());
  for (size_t j = 0; j < extract.size(); ++j) {
    int64_t copies = 0, called = 0;
    for (int64_t i = 0; i < sub.n_samples(); ++i) {
      const int x = dosage_of_code(sub.view().code(i, int64_t(j)));
      if (x >= 0) copies += x, ++called;
    }
    diploid[j] = called ? double(copies) / double(2 * called) : nan_v;
  }
  expect_same(frequencies_of(by_bytes.get()), diploid, "p from bytes");
  expect_same(frequencies_of(by_rows.get()), diploid, "p from rows");

  // Products on the subset: every handle against the C++ op on the subset copy.
  int seed = 500;
  for (pmx_genotypes* h : {by_index.get(), by_file.get(), by_bytes.get(), by_rows.get()}) {
    const auto c = op_centring(frequencies_of(h), scales_of(h));
    for (bool trans : {false, true})
    {
      ++seed;
      check_product(h, sub.view(), c, trans, seed % 2 == 0, 6, 1, 0.25, seed, "subset");
    }
  }
}

TEST(CapiGenotypes, BytesHandleOwnsItsCopy) {
  auto ctx = make_context();
  std::string bed = file_bytes(data().prefix + ".bed");
  pmx_genotypes* raw = nullptr;
  ASSERT_EQ(pmx_genotypes_from_bed_bytes(ctx.get(), bed.data(), int64_t(bed.size()), PMX_BED_WITH_MAGIC, N, K,
                                         nullptr, 0, nullptr, 0, &raw),
            PMX_OK);
  genotypes_ptr h(raw);
  std::fill(bed.begin(), bed.end(), '\x55');  // all missing, had the handle kept the pointer
  bed.clear();
  bed.shrink_to_fit();
  ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), 0, 0), PMX_OK);
  const auto c = op_centring(frequencies_of(h.get()), std::vector<double>(K, 1.0));
  check_product(h.get(), data().g.view(), c, true, true, 2, 0, 0.0, 77, "bytes copy");
}

// ---- bad input ----------------------------------------------------------------------------------

TEST(CapiBadInput, Creation) {
  auto ctx = make_context();
  pmx_context* c = ctx.get();
  const auto& d = data();
  pmx_genotypes* g = reinterpret_cast<pmx_genotypes*>(0x1);  // must be cleared on failure
  EXPECT_EQ(pmx_genotypes_open_bed(nullptr, d.prefix.c_str(), nullptr, nullptr, &g), PMX_E_NULL_ARGUMENT);
  EXPECT_EQ(g, nullptr);
  EXPECT_FAILS(pmx_genotypes_open_bed(c, d.prefix.c_str(), nullptr, nullptr, nullptr), PMX_E_NULL_ARGUMENT,
               pmx_context_last_error(c), "out");
  EXPECT_FAILS(pmx_genotypes_open_bed(c, nullptr, nullptr, nullptr, &g), PMX_E_NULL_ARGUMENT,
               pmx_context_last_error(c), "prefix");
  EXPECT_FAILS(pmx_genotypes_open_bed(c, "", nullptr, nullptr, &g), PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c),
               "prefix");

  // Missing files: PMX_E_FILE naming the file.
  const std::string missing = test::work().path("no_such_set");
  EXPECT_FAILS(pmx_genotypes_open_bed(c, missing.c_str(), nullptr, nullptr, &g), PMX_E_FILE,
               pmx_context_last_error(c), "no_such_set.bed", "pmx_genotypes_open_bed");
  EXPECT_EQ(g, nullptr);
  const std::string keep_missing = test::work().path("no_such_keep.txt");
  EXPECT_FAILS(pmx_genotypes_open_bed(c, d.prefix.c_str(), keep_missing.c_str(), nullptr, &g), PMX_E_FILE,
               pmx_context_last_error(c), "no_such_keep.txt", "keep_file");
  EXPECT_FAILS(pmx_genotypes_open_bed(c, d.prefix.c_str(), nullptr, keep_missing.c_str(), &g), PMX_E_FILE,
               pmx_context_last_error(c), "no_such_keep.txt", "extract_file");
  const std::string nothing = test::work().path("capi_keep_nothing.txt");
  write_text(nothing, "#IID\nnobody\n");
  EXPECT_FAILS(pmx_genotypes_open_bed(c, d.prefix.c_str(), nothing.c_str(), nullptr, &g), PMX_E_BAD_INPUT,
               pmx_context_last_error(c), "capi_keep_nothing.txt", "no listed sample");

  // A .bed with bad magic bytes, and one of the wrong size.
  const std::string bad = test::work().path("capi_badmagic");
  write_text(bad + ".fam", file_bytes(d.prefix + ".fam"));
  write_text(bad + ".bim", file_bytes(d.prefix + ".bim"));
  std::string bed = file_bytes(d.prefix + ".bed");
  bed[0] = 'x';
  write_text(bad + ".bed", bed);
  EXPECT_FAILS(pmx_genotypes_open_bed(c, bad.c_str(), nullptr, nullptr, &g), PMX_E_BAD_INPUT,
               pmx_context_last_error(c), "capi_badmagic.bed", "0x6c 0x1b");
  bed = file_bytes(d.prefix + ".bed");
  write_text(bad + ".bed", bed.substr(0, bed.size() - 1));
  EXPECT_FAILS(pmx_genotypes_open_bed(c, bad.c_str(), nullptr, nullptr, &g), PMX_E_BAD_INPUT,
               pmx_context_last_error(c), "capi_badmagic.bed", "size");

  // Index subsets.
  const int64_t ok[] = {1, 2}, out_of_range[] = {3, 77}, unsorted[] = {5, 5}, negative[] = {-1};
  EXPECT_FAILS(pmx_genotypes_open_bed_subset(c, d.prefix.c_str(), out_of_range, 2, nullptr, 0, &g),
               PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c), "samples[1] = 77", "out of range", "77 samples");
  const int64_t variant_out_of_range[] = {0, 131};
  EXPECT_FAILS(pmx_genotypes_open_bed_subset(c, d.prefix.c_str(), nullptr, 0, variant_out_of_range, 2, &g),
               PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c), "variants[1] = 131", "131 variants in",
               "capi.bim");
  EXPECT_FAILS(pmx_genotypes_open_bed_subset(c, d.prefix.c_str(), unsorted, 2, nullptr, 0, &g), PMX_E_INVALID_ARGUMENT,
               pmx_context_last_error(c), "samples[1] = 5", "strictly increasing");
  EXPECT_FAILS(pmx_genotypes_open_bed_subset(c, d.prefix.c_str(), nullptr, 0, negative, 1, &g),
               PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c), "variants[0] = -1");
  EXPECT_FAILS(pmx_genotypes_open_bed_subset(c, d.prefix.c_str(), nullptr, 3, nullptr, 0, &g), PMX_E_NULL_ARGUMENT,
               pmx_context_last_error(c), "samples is NULL", "n_keep_samples is 3");
  EXPECT_FAILS(pmx_genotypes_open_bed_subset(c, d.prefix.c_str(), ok, 0, nullptr, 0, &g), PMX_E_INVALID_ARGUMENT,
               pmx_context_last_error(c), "n_keep_samples is 0");
  EXPECT_EQ(g, nullptr);
}

TEST(CapiBadInput, Bytes) {
  auto ctx = make_context();
  pmx_context* c = ctx.get();
  std::string bed = file_bytes(data().prefix + ".bed");
  const auto size = int64_t(bed.size());
  pmx_genotypes* g = nullptr;
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, nullptr, size, PMX_BED_WITH_MAGIC, N, K, nullptr, 0, nullptr, 0, &g),
               PMX_E_NULL_ARGUMENT, pmx_context_last_error(c), "bytes is NULL");
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, 9, N, K, nullptr, 0, nullptr, 0, &g),
               PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c), "format 9");
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, PMX_BED_WITH_MAGIC, 0, K, nullptr, 0, nullptr, 0, &g),
               PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c), "n_samples is 0");
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, PMX_BED_WITH_MAGIC, N, K + 1, nullptr, 0, nullptr,
                                            0, &g),
               PMX_E_BAD_INPUT, pmx_context_last_error(c), "n_bytes is " + std::to_string(size),
               "need exactly " + std::to_string(size + 20));
  // Rows only but with the magic bytes still there: 3 bytes too many.
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, PMX_BED_ROWS_ONLY, N, K, nullptr, 0, nullptr, 0, &g),
               PMX_E_BAD_INPUT, pmx_context_last_error(c), "PMX_BED_ROWS_ONLY");
  bed[1] = 0;
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, PMX_BED_WITH_MAGIC, N, K, nullptr, 0, nullptr, 0, &g),
               PMX_E_BAD_INPUT, pmx_context_last_error(c), "magic bytes 0x6c 0x1b");
  bed[1] = 0x1b;
  bed[2] = 0;
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, PMX_BED_WITH_MAGIC, N, K, nullptr, 0, nullptr, 0, &g),
               PMX_E_BAD_INPUT, pmx_context_last_error(c), "sample-major");
  bed[2] = 1;
  const int64_t bad_samples[] = {10, 9};
  EXPECT_FAILS(pmx_genotypes_from_bed_bytes(c, bed.data(), size, PMX_BED_WITH_MAGIC, N, K, bad_samples, 2, nullptr,
                                            0, &g),
               PMX_E_INVALID_ARGUMENT, pmx_context_last_error(c), "samples[1] = 9", "strictly increasing");
  EXPECT_EQ(g, nullptr);
}

TEST(CapiBadInput, FrequenciesAndScaling) {
  auto ctx = make_context();
  auto h = open_all(ctx.get());
  pmx_genotypes* g = h.get();
  std::vector<double> p(K, 0.3), out(K);
  EXPECT_FAILS(pmx_genotypes_get_frequencies(g, out.data(), K), PMX_E_STATE, pmx_genotypes_last_error(g),
               "no allele frequencies", "pmx_genotypes_compute_frequencies");
  EXPECT_EQ(pmx_genotypes_set_scaling(g, PMX_SCALE_STANDARDIZE, nullptr, 0), PMX_OK);
  EXPECT_FAILS(pmx_genotypes_get_scaling(g, out.data(), K), PMX_E_STATE, pmx_genotypes_last_error(g),
               "standardized scales need allele frequencies");
  EXPECT_FAILS(pmx_genotypes_compute_frequencies(g, 0, 96), PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g),
               "n_autosomes is 96");
  EXPECT_FAILS(pmx_genotypes_set_frequencies(g, p.data(), K - 1), PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g),
               "count is 130", "131");
  EXPECT_FAILS(pmx_genotypes_set_frequencies(g, nullptr, K), PMX_E_NULL_ARGUMENT, pmx_genotypes_last_error(g),
               "p is NULL");
  p[9] = 1.5;
  EXPECT_FAILS(pmx_genotypes_set_frequencies(g, p.data(), K), PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g),
               "p[9] = 1.5");
  p[9] = std::numeric_limits<double>::infinity();
  EXPECT_FAILS(pmx_genotypes_set_frequencies(g, p.data(), K), PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g),
               "p[9] = inf");
  EXPECT_FAILS(pmx_genotypes_set_scaling(g, 3, nullptr, 0), PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g),
               "scaling 3");
  EXPECT_FAILS(pmx_genotypes_set_scaling(g, PMX_SCALE_USER, nullptr, K), PMX_E_NULL_ARGUMENT,
               pmx_genotypes_last_error(g), "scale is NULL");
  std::vector<double> s(K, 1.0);
  s[4] = nan_v;
  EXPECT_FAILS(pmx_genotypes_set_scaling(g, PMX_SCALE_USER, s.data(), K), PMX_E_INVALID_ARGUMENT,
               pmx_genotypes_last_error(g), "scale[4] = nan", "not finite");
  EXPECT_FAILS(pmx_genotypes_set_scaling(g, PMX_SCALE_NONE, s.data(), K), PMX_E_INVALID_ARGUMENT,
               pmx_genotypes_last_error(g), "scale must be NULL");
  EXPECT_FAILS(pmx_genotypes_sample_indices(g, nullptr, N), PMX_E_NULL_ARGUMENT, pmx_genotypes_last_error(g), "index");
  std::vector<int64_t> idx(N);
  EXPECT_FAILS(pmx_genotypes_sample_indices(g, idx.data(), N + 1), PMX_E_INVALID_ARGUMENT,
               pmx_genotypes_last_error(g), "count is 78", "77 samples");
  EXPECT_FAILS(pmx_genotypes_device(g, nullptr), PMX_E_NULL_ARGUMENT, pmx_genotypes_last_error(g), "device");
  EXPECT_EQ(pmx_genotypes_compute_frequencies(nullptr, 0, 0), PMX_E_NULL_ARGUMENT);
  EXPECT_EQ(pmx_genotypes_dims(nullptr, nullptr, nullptr), PMX_E_NULL_ARGUMENT);
}

TEST(CapiBadInput, Multiply) {
  auto ctx = make_context();
  auto h = open_all(ctx.get());
  pmx_genotypes* g = h.get();
  const int64_t l = 4;
  std::vector<double> lam(K * 8, 0.5), y(N * 8, 0.0), lt(N * 8, 0.5), w(K * 8, 0.0);
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, lam.data(), l, 0.0, y.data(), l), PMX_E_STATE,
               pmx_genotypes_last_error(g), "no allele frequencies");
  ASSERT_EQ(pmx_genotypes_compute_frequencies(g, 0, 0), PMX_OK);
  EXPECT_FAILS(pmx_genotypes_multiply(g, 2, PMX_ROW_MAJOR, l, lam.data(), l, 0.0, y.data(), l),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "trans 2");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, -1, l, lam.data(), l, 0.0, y.data(), l),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "layout -1");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, -2, lam.data(), l, 0.0, y.data(), l),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "l is -2");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, nullptr, l, 0.0, y.data(), l),
               PMX_E_NULL_ARGUMENT, pmx_genotypes_last_error(g), "in is NULL");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_TRANS, PMX_ROW_MAJOR, l, lt.data(), l, 0.0, nullptr, l),
               PMX_E_NULL_ARGUMENT, pmx_genotypes_last_error(g), "out is NULL");
  // ld < l (row-major), ld < rows (column-major), for the input and the output.
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, lam.data(), l - 1, 0.0, y.data(), l),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "ld_in is 3", "l = 4");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_TRANS, PMX_ROW_MAJOR, l, lt.data(), l, 0.0, w.data(), 2),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "ld_out is 2");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_COL_MAJOR, l, lam.data(), K - 1, 0.0, y.data(), N),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "ld_in is 130", "131 rows", "n_variants");
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_TRANS, PMX_COL_MAJOR, l, lt.data(), N, 0.0, w.data(), N),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "ld_out is 77", "131 rows");
  // in and out overlapping.
  std::vector<double> both(K * l + N * l);
  EXPECT_FAILS(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, both.data(), l, 0.0, both.data() + 10, l),
               PMX_E_INVALID_ARGUMENT, pmx_genotypes_last_error(g), "overlap");
  EXPECT_EQ(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, both.data(), l, 0.0, both.data() + K * l, l),
            PMX_OK)
      << pmx_genotypes_last_error(g);
  EXPECT_STREQ(pmx_genotypes_last_error(g), "");  // cleared by the success
  EXPECT_EQ(pmx_genotypes_multiply(nullptr, PMX_NO_TRANS, PMX_ROW_MAJOR, l, lam.data(), l, 0.0, y.data(), l),
            PMX_E_NULL_ARGUMENT);
}

// ---- one handle, several threads ---------------------------------------------------------------

TEST(CapiThreads, ConcurrentProductsMatchSerial) {
  auto ctx = make_context(PMX_DEVICE_CPU, 1);
  auto h = open_all(ctx.get());
  pmx_genotypes* g = h.get();
  ASSERT_EQ(pmx_genotypes_compute_frequencies(g, 0, 0), PMX_OK);
  ASSERT_EQ(pmx_genotypes_set_scaling(g, PMX_SCALE_STANDARDIZE, nullptr, 0), PMX_OK);
  const auto p = frequencies_of(g);

  constexpr int threads = 8, rounds = 20;
  const int64_t l = 3;
  struct job {
    dense lam, lt;
    std::vector<double> y, w;  // serial results
  };
  std::vector<job> jobs(threads);
  for (int t = 0; t < threads; ++t) {
    jobs[t].lam = random_dense(K, l, true, 0, 1000 + t);
    jobs[t].lt = random_dense(N, l, false, 1, 2000 + t);
    jobs[t].y.resize(N * l);
    jobs[t].w.resize(K * l);
    ASSERT_EQ(pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, jobs[t].lam.a.data(), l, 0.0,
                                     jobs[t].y.data(), l),
              PMX_OK);
    ASSERT_EQ(pmx_genotypes_multiply(g, PMX_TRANS, PMX_COL_MAJOR, l, jobs[t].lt.a.data(), N + 1, 0.0,
                                     jobs[t].w.data(), K),
              PMX_OK);
  }
  std::vector<int> mismatches(threads, 0), failures(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<double> y(N * l), w(K * l);
      for (int r = 0; r < rounds; ++r) {
        if (t == 0) {
          // A writer among the readers: the same frequencies and scaling again; products in flight
          // see either the old or the new (equal) centring, never a half-written one.
          failures[t] += pmx_genotypes_set_frequencies(g, p.data(), K) != PMX_OK;
          failures[t] += pmx_genotypes_set_scaling(g, PMX_SCALE_STANDARDIZE, nullptr, 0) != PMX_OK;
        }
        failures[t] += pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, jobs[t].lam.a.data(), l, 0.0,
                                              y.data(), l) != PMX_OK;
        failures[t] += pmx_genotypes_multiply(g, PMX_TRANS, PMX_COL_MAJOR, l, jobs[t].lt.a.data(), N + 1, 0.0,
                                              w.data(), K) != PMX_OK;
        mismatches[t] += y != jobs[t].y;
        mismatches[t] += w != jobs[t].w;
        // A failure on this thread is reported to this thread only.
        if (t % 2) {
          failures[t] += pmx_genotypes_multiply(g, PMX_NO_TRANS, PMX_ROW_MAJOR, l, nullptr, l, 0.0, y.data(), l) !=
                         PMX_E_NULL_ARGUMENT;
          failures[t] += std::string(pmx_genotypes_last_error(g)).find("in is NULL") == std::string::npos;
        } else {
          failures[t] += std::string(pmx_genotypes_last_error(g)) != "";
        }
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  }
}

// ---- cuda handles (skipped without a GPU) -------------------------------------------------------

TEST(CapiCuda, HostAndDevicePointers) {
  PMX_REQUIRE_GPU();
  auto ctx = make_context(PMX_DEVICE_CUDA, 2);
  auto h = open_all(ctx.get());  // uploads the genotypes once
  ASSERT_TRUE(h);
  int device = -1;
  ASSERT_EQ(pmx_genotypes_device(h.get(), &device), PMX_OK);
  EXPECT_EQ(device, PMX_DEVICE_CUDA);
  ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), 0, 0), PMX_OK);
  ASSERT_EQ(pmx_genotypes_set_scaling(h.get(), PMX_SCALE_STANDARDIZE, nullptr, 0), PMX_OK);
  const auto c = op_centring(frequencies_of(h.get()), scales_of(h.get()));
  const variant_major_view g = data().g.view();
  uint64_t seed = 3000;
  for (bool trans : {false, true})
    for (int64_t l : {1, 5, 64}) {
      const std::string what = std::string(trans ? "cuda Z'L" : "cuda ZL") + " l=" + std::to_string(l);
      check_product(h.get(), g, c, trans, true, l, 1, 0.5, ++seed, what + " host row");
      check_product(h.get(), g, c, trans, false, l, 2, 0.0, ++seed, what + " host col");
      for (int where : {device_in, device_out, device_both})
        check_product(h.get(), g, c, trans, true, l, 1, -1.0, ++seed, what + " device " + std::to_string(where),
                      where);
    }
#ifdef PMX_HAVE_CUDA
  // Column-major takes host memory only.
  device_vector lam(std::vector<double>(K * 2, 0.5));
  std::vector<double> y(N * 2);
  EXPECT_FAILS(pmx_genotypes_multiply(h.get(), PMX_NO_TRANS, PMX_COL_MAJOR, 2, lam.p, K, 0.0, y.data(), N),
               PMX_E_UNSUPPORTED, pmx_genotypes_last_error(h.get()), "PMX_COL_MAJOR", "device memory");
#endif
}

// ---- real data: frequencies are plink2 --freq's numbers ------------------------------------------

TEST(CapiRealData, FrequenciesMatchFreqCommand) {
  struct set {
    const char* prefix;
    int autosomes;
  };
  int tried = 0;
  for (const set s : {set{"rice44k/UNL", 12}, set{"bglr_mice/mice", 19}, set{"synbreed_cattle/cattle", 29}}) {
    const std::string prefix = test::shared_data(s.prefix);
    if (prefix.empty()) continue;
    ++tried;
    const plink_fileset files(prefix);
    frequency_options opt;
    opt.chromosomes = chromosome_set{s.autosomes};
    const auto expected = compute_allele_frequencies(executor(backend::cpu, 2), files, opt, nullptr);
    auto ctx = make_context();
    pmx_genotypes* raw = nullptr;
    ASSERT_EQ(pmx_genotypes_open_bed(ctx.get(), prefix.c_str(), nullptr, nullptr, &raw), PMX_OK)
        << pmx_context_last_error(ctx.get());
    genotypes_ptr h(raw);
    ASSERT_EQ(pmx_genotypes_compute_frequencies(h.get(), 0, s.autosomes), PMX_OK);
    expect_same(frequencies_of(h.get()), expected.a1, s.prefix);
  }
  if (!tried) GTEST_SKIP() << "no dataset of ../shared/data found";
}
