// Y = S X for a sparse symmetric S stored as its lower triangle: both triangles are laid out once
// in one CSR so that rows of Y are independent (parallel without atomics, fixed summation order).
#include <omp.h>

#include "panoramix/error.hpp"
#include "panoramix/genotyped_a_inverse.hpp"

namespace pmx {

sparse_symmetric_operator::sparse_symmetric_operator(const sparse_symmetric& s) : n_(s.n) {
  PMX_EXPECTS(static_cast<int64_t>(s.row_start.size()) == s.n + 1, "row_start has n + 1 offsets");
  // Row i of the full matrix: the strictly upper part (entries (j, i) of rows j > i, by
  // increasing j) after the stored lower part (columns ≤ i): columns stay sorted.
  row_start_.assign(n_ + 1, 0);
  for (int64_t r = 0; r < n_; ++r)
    for (int64_t k = s.row_start[r]; k < s.row_start[r + 1]; ++k) {
      const int64_t c = s.col[k];
      PMX_EXPECTS(c >= 0 && c <= r, "lower triangle stored (0 <= col <= row)");
      ++row_start_[r + 1];
      if (c != r) ++row_start_[c + 1];
    }
  for (int64_t r = 0; r < n_; ++r) row_start_[r + 1] += row_start_[r];
  col_.resize(row_start_[n_]);
  value_.resize(row_start_[n_]);
  std::vector<int64_t> fill(row_start_.begin(), row_start_.end() - 1);
  // Lower parts first (each row's own entries), then the mirrored ones in increasing row order.
  for (int64_t r = 0; r < n_; ++r)
    for (int64_t k = s.row_start[r]; k < s.row_start[r + 1]; ++k) {
      col_[fill[r]] = s.col[k];
      value_[fill[r]++] = s.value[k];
    }
  for (int64_t r = 0; r < n_; ++r)
    for (int64_t k = s.row_start[r]; k < s.row_start[r + 1]; ++k) {
      const int64_t c = s.col[k];
      if (c == r) continue;
      col_[fill[c]] = r;
      value_[fill[c]++] = s.value[k];
    }
}

void sparse_symmetric_operator::apply(int64_t t, const double* X, double* Y, int threads) const {
  PMX_EXPECTS(t >= 0, "t >= 0");
  if (n_ == 0 || t == 0) return;
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const int64_t* rs = row_start_.data();
  const int64_t* cl = col_.data();
  const double* v = value_.data();
  if (t == 1) {
#pragma omp parallel for num_threads(nt) schedule(static, 4096) if (n_ > 20000)
    for (int64_t r = 0; r < n_; ++r) {
      double acc = 0.0;
      for (int64_t k = rs[r]; k < rs[r + 1]; ++k) acc += v[k] * X[cl[k]];
      Y[r] = acc;
    }
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static, 1024) if (n_ * t > 20000)
  for (int64_t r = 0; r < n_; ++r) {
    double* y = Y + r * t;
    for (int64_t c = 0; c < t; ++c) y[c] = 0.0;
    for (int64_t k = rs[r]; k < rs[r + 1]; ++k) {
      const double a = v[k];
      const double* x = X + cl[k] * t;
      for (int64_t c = 0; c < t; ++c) y[c] += a * x[c];
    }
  }
}

void symmetric_multiply(const sparse_symmetric& s, int64_t t, const double* X, double* Y,
                        int threads) {
  sparse_symmetric_operator(s).apply(t, X, Y, threads);
}

}  // namespace pmx
