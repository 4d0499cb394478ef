#include "test_support.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <cmath>
#include <map>
#include <sstream>

namespace pmx::test {

packed_genotypes random_genotypes(int64_t n, int64_t k, double missing, uint64_t seed, bool adversarial) {
  packed_genotypes g(n, k);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t l = 0; l < k; ++l) {
    const double p = 0.02 + 0.96 * u(rng);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t code;
      if (u(rng) < missing) code = code_missing;
      else {
        const int x = (u(rng) < p) + (u(rng) < p);
        code = x == 2 ? code_hom_a1 : x == 1 ? code_het : code_hom_a2;
      }
      if (adversarial && k >= 2 && l == 0) code = code_missing;
      if (adversarial && k >= 2 && l == 1 && code != code_missing) code = code_hom_a2;
      g.set(i, l, code);
    }
  }
  return g;
}

temp_dir::temp_dir() {
  std::string templ = (std::filesystem::current_path() / "pmxtest.XXXXXX").string();
  if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = templ;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  if (!std::getenv("PMX_KEEP_TEST_FILES")) std::filesystem::remove_all(dir_, ec);
}

int run(const std::string& command, const std::string& log) {
  const std::string full = log.empty() ? command + " >/dev/null 2>&1" : command + " >" + log + " 2>&1";
  const int r = std::system(full.c_str());
  return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

int panoramix(const std::string& args, const std::string& log) {
  return run(std::string(PMX_BINARY) + " " + args, log);
}

std::string shared_data(const std::string& relative_prefix) {
  const std::string p = std::string(PMX_SHARED_DATA) + "/" + relative_prefix;
  return std::filesystem::exists(p + ".bed") ? p : std::string();
}

std::string data_file(const std::string& relative_path) {
  const std::string p = std::string(PMX_SHARED_DATA) + "/" + relative_path;
  return std::filesystem::exists(p) ? p : std::string();
}

temp_dir& work() {
  static temp_dir dir;
  return dir;
}

std::string shq(const std::string& s) { return "'" + s + "'"; }

int run_once(const std::string& command, const std::string& log) {
  static std::map<std::string, int> done;
  auto it = done.find(command);
  if (it != done.end()) return it->second;
  const int rc = run(command, log);
  done.emplace(command, rc);
  return rc;
}

std::string python_with_scipy() {
  for (const char* python : {"/usr/bin/python3", "python3"})
    if (run(std::string(python) + " -c 'import numpy, scipy'") == 0) return python;
  return {};
}

bool have_program(const std::string& name) { return run("command -v " + name) == 0; }

template <class T>
static std::vector<T> read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  in.seekg(0, std::ios::end);
  const auto bytes = static_cast<size_t>(in.tellg());
  in.seekg(0);
  std::vector<T> v(bytes / sizeof(T));
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return v;
}

std::vector<double> read_doubles(const std::string& path) { return read_binary<double>(path); }
std::vector<float> read_floats(const std::string& path) { return read_binary<float>(path); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A = Q diag(lambda) Qᵀ with Q a product of three Householder reflections.
std::vector<double> matrix_with_spectrum(const std::vector<double>& lambda, uint64_t seed) {
  const int64_t n = static_cast<int64_t>(lambda.size());
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::vector<double> Q(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) Q[i * n + i] = 1.0;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> v(static_cast<size_t>(n));
    double norm = 0;
    for (auto& x : v) {
      x = z(rng);
      norm += x * x;
    }
    for (auto& x : v) x /= std::sqrt(norm);
    for (int64_t i = 0; i < n; ++i) {  // Q <- Q (I - 2 v vᵀ)
      double d = 0;
      for (int64_t j = 0; j < n; ++j) d += Q[i * n + j] * v[j];
      for (int64_t j = 0; j < n; ++j) Q[i * n + j] -= 2 * d * v[j];
    }
  }
  std::vector<double> A(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      long double s = 0;
      for (int64_t k = 0; k < n; ++k) s += static_cast<long double>(Q[i * n + k]) * lambda[k] * Q[j * n + k];
      A[i * n + j] = static_cast<double>(s);
    }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) A[i * n + j] = A[j * n + i];  // exactly symmetric
  return A;
}

double shifted_solve_error(const std::vector<double>& A, const std::vector<double>& lambda, double a, double b,
                           const std::vector<double>& B, const std::vector<double>& X, int64_t m, double logdet) {
  const int64_t n = static_cast<int64_t>(lambda.size());
  double worst = 0;
  for (int64_t c = 0; c < m; ++c) {
    long double bnorm = 0;
    for (int64_t i = 0; i < n; ++i) bnorm = std::max<long double>(bnorm, std::fabs(static_cast<long double>(B[c * n + i])));
    for (int64_t i = 0; i < n; ++i) {
      long double r = static_cast<long double>(b) * X[c * n + i] - B[c * n + i];
      for (int64_t j = 0; j < n; ++j) r += static_cast<long double>(a) * A[i * n + j] * X[c * n + j];
      worst = std::max(worst, static_cast<double>(std::fabs(r) / bnorm));
    }
  }
  long double ref = 0;
  for (double l : lambda) ref += std::log(static_cast<long double>(a) * l + b);
  return std::max(worst, static_cast<double>(std::fabs(logdet - ref) / std::fabs(ref)));
}

// Gaussian elimination with partial pivoting in long double: solves M X = B (M k×k, B k×m,
// row-major), returns log|det M|.
long double ld_solve(std::vector<long double> M, std::vector<long double>& B, int64_t k, int64_t m) {
  long double logdet = 0;
  for (int64_t c = 0; c < k; ++c) {
    int64_t piv = c;
    for (int64_t r = c + 1; r < k; ++r)
      if (std::fabs(M[r * k + c]) > std::fabs(M[piv * k + c])) piv = r;
    if (piv != c) {
      for (int64_t j = 0; j < k; ++j) std::swap(M[c * k + j], M[piv * k + j]);
      for (int64_t j = 0; j < m; ++j) std::swap(B[c * m + j], B[piv * m + j]);
    }
    logdet += std::log(std::fabs(M[c * k + c]));
    for (int64_t r = c + 1; r < k; ++r) {
      const long double f = M[r * k + c] / M[c * k + c];
      if (f == 0) continue;
      for (int64_t j = c; j < k; ++j) M[r * k + j] -= f * M[c * k + j];
      for (int64_t j = 0; j < m; ++j) B[r * m + j] -= f * B[c * m + j];
    }
  }
  for (int64_t j = 0; j < m; ++j)
    for (int64_t r = k - 1; r >= 0; --r) {
      long double s = B[r * m + j];
      for (int64_t c = r + 1; c < k; ++c) s -= M[r * k + c] * B[c * m + j];
      B[r * m + j] = s / M[r * k + r];
    }
  return logdet;
}

}  // namespace pmx::test
