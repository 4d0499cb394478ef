// Dense symmetric algebra of gBLUP/REML/exact PCA: time of the dense_linalg op's Cholesky solve
// and eigendecompositions per order n, on cuda (cuSOLVER) and cpu (LAPACK in OpenBLAS), with the
// achieved FP64 rate of the Cholesky (n³/3 flops) beside it.
//   bench_dense_linalg [--sizes 10000,20000,50000] [--devices cuda,cpu] [--eigen-max N] [--reps R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "panoramix/matrix_buffer.hpp"
#include "panoramix/ops/dense_linalg.hpp"

using namespace pmx;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

// A symmetric positive definite matrix (diagonally dominant: symmetric noise of ±0.01 off the
// diagonal), built in parallel.
void fill(matrix_buffer<double>& A, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const uint64_t h = static_cast<uint64_t>(std::min(i, j)) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(std::max(i, j));
      A[i * n + j] = (i == j ? 1.0 + 0.01 * static_cast<double>(n) : 0.0) + 0.02 * (static_cast<double>((h * 0xbf58476d1ce4e5b9ull) >> 11) * 0x1.0p-53 - 0.5);
    }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string sizes = "10000,20000", devices = "cuda,cpu";
  int64_t eigen_max = 20000, cpu_max = 10000;
  int reps = 3;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--sizes")) sizes = argv[a + 1];
    else if (!std::strcmp(argv[a], "--devices")) devices = argv[a + 1];
    else if (!std::strcmp(argv[a], "--eigen-max")) eigen_max = std::stoll(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--cpu-max")) cpu_max = std::stoll(argv[a + 1]);
    else if (!std::strcmp(argv[a], "--reps")) reps = std::stoi(argv[a + 1]);
  }
  std::printf("%-6s %7s %-22s %10s %10s\n", "device", "n", "operation", "median s", "GFLOP/s");
  for (const auto& size : split(sizes)) {
    const int64_t n = std::stoll(size);
    matrix_buffer<double> A0(static_cast<size_t>(n * n)), A(static_cast<size_t>(n * n));
    fill(A0, n);
    std::vector<double> B(static_cast<size_t>(n) * 2, 1.0), w(static_cast<size_t>(n)), V(static_cast<size_t>(n) * 10);
    for (const auto& dev : split(devices)) {
      if (dev == "cpu" && n > cpu_max) continue;
      const executor exec(dev == "cuda" ? backend::cuda : backend::cpu, 0);
      auto time = [&](const char* what, double flops, auto&& op) {
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
          std::memcpy(A.data(), A0.data(), sizeof(double) * n * n);
          const auto t0 = std::chrono::steady_clock::now();
          op();
          t.push_back(seconds_since(t0));
        }
        std::sort(t.begin(), t.end());
        const double med = t[t.size() / 2];
        std::printf("%-6s %7lld %-22s %10.3f %10.1f\n", dev.c_str(), static_cast<long long>(n), what, med,
                    flops > 0 ? flops / med * 1e-9 : 0.0);
        std::fflush(stdout);
      };
      const double nd = static_cast<double>(n);
      time("cholesky_solve (2 rhs)", nd * nd * nd / 3, [&] { cholesky_solve(exec, n, A.data(), n, 2, B.data(), n); });
      time("eigen top 10", 0, [&] { symmetric_eigen(exec, n, A.data(), n, 10, w.data(), V.data(), n); });
      if (n <= eigen_max) {
        matrix_buffer<double> Vall(static_cast<size_t>(n * n));
        time("eigen all + vectors", 0, [&] { symmetric_eigen(exec, n, A.data(), n, n, w.data(), Vall.data(), n); });
        time("eigen all, values", 0, [&] { symmetric_eigen(exec, n, A.data(), n, n, w.data(), nullptr, n); });
      }
    }
  }
  return 0;
}
