// Solver vectors on the host: OpenMP over rows (or chunks, for dot), one thread below 65,536
// values (a parallel region can cost a scheduler time slice on shared cores, more than the work).
#include <omp.h>

#include <algorithm>
#include <vector>

#include "ops/solver_vectors/kernels.hpp"

namespace pmx::kernels::cpu {
namespace {

constexpr int64_t parallel_length = 1 << 16;

int threads_of(const executor& exec) { return exec.threads() > 0 ? exec.threads() : omp_get_max_threads(); }

}  // namespace

double dot(const executor& exec, int64_t n, const double* a, const double* b) {
  const int64_t chunks = (n + dot_chunk - 1) / dot_chunk;
  std::vector<double> part(chunks);
#pragma omp parallel for num_threads(threads_of(exec)) schedule(static) if (n >= parallel_length)
  for (int64_t c = 0; c < chunks; ++c) {
    double s = 0;
    const int64_t end = std::min(n, (c + 1) * dot_chunk);
    for (int64_t i = c * dot_chunk; i < end; ++i) s += a[i] * b[i];
    part[c] = s;
  }
  double s = 0;
  for (double v : part) s += v;
  return s;
}

void axpby(const executor& exec, int64_t rows, int64_t t, double a, const double* x, int64_t ldx, double b, double* y,
           int64_t ldy) {
#pragma omp parallel for num_threads(threads_of(exec)) schedule(static) if (rows * t >= parallel_length)
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < t; ++c) {
      double& o = y[i * ldy + c];
      o = b == 0 ? a * x[i * ldx + c] : a * x[i * ldx + c] + b * o;
    }
}

void pcg_update(const executor& exec, int64_t n, double alpha, const double* p, const double* q, double* x,
                double* r) {
#pragma omp parallel for num_threads(threads_of(exec)) schedule(static) if (n >= parallel_length)
  for (int64_t i = 0; i < n; ++i) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  }
}

void block_multiply(const executor& exec, int64_t rows, int64_t t, const double* blocks, int64_t block_stride,
                    const double* x, double* y) {
#pragma omp parallel for num_threads(threads_of(exec)) schedule(static) if (rows * t >= parallel_length)
  for (int64_t i = 0; i < rows; ++i) {
    const double* B = blocks + i * block_stride;
    for (int64_t a = 0; a < t; ++a) {
      double s = 0;
      for (int64_t c = 0; c < t; ++c) s += B[a * t + c] * x[i * t + c];
      y[i * t + a] = s;
    }
  }
}

void gather_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, const double* x, int64_t ldx,
                 double* y, int64_t ldy) {
#pragma omp parallel for num_threads(threads_of(exec)) schedule(static) if (k * t >= parallel_length)
  for (int64_t i = 0; i < k; ++i)
    for (int64_t c = 0; c < t; ++c) y[i * ldy + c] = x[index[i] * ldx + c];
}

void scatter_add_rows(const executor& exec, int64_t k, int64_t t, const int64_t* index, double a, const double* x,
                      int64_t ldx, double* y, int64_t ldy) {
#pragma omp parallel for num_threads(threads_of(exec)) schedule(static) if (k * t >= parallel_length)
  for (int64_t i = 0; i < k; ++i)
    for (int64_t c = 0; c < t; ++c) y[index[i] * ldy + c] += a * x[i * ldx + c];
}

}  // namespace pmx::kernels::cpu
