// Y = S X for a sparse symmetric S stored as its lower triangle: both triangles are laid out once
// in one CSR so that rows of Y are independent (parallel without atomics, fixed summation order).
#include <omp.h>

#include <limits>

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
  // 32-bit columns when they fit: the product streams the structure, a quarter less to read.
  if (n_ <= std::numeric_limits<int32_t>::max()) {
    col32_.assign(col_.begin(), col_.end());
    std::vector<int64_t>().swap(col_);
  }
}

namespace {

// Y = S X over the full CSR, rows in parallel; Index: the stored column type.
template <class Index>
void multiply_rows(int64_t n, const int64_t* rs, const Index* cl, const double* v, int64_t t,
                   const double* X, double* Y, int nt) {
  if (t == 1) {
#pragma omp parallel for num_threads(nt) schedule(static, 4096) if (n > 20000)
    for (int64_t r = 0; r < n; ++r) {
      double acc = 0.0;
      for (int64_t k = rs[r]; k < rs[r + 1]; ++k) acc += v[k] * X[cl[k]];
      Y[r] = acc;
    }
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static, 1024) if (n * t > 20000)
  for (int64_t r = 0; r < n; ++r) {
    double* y = Y + r * t;
    for (int64_t c = 0; c < t; ++c) y[c] = 0.0;
    for (int64_t k = rs[r]; k < rs[r + 1]; ++k) {
      const double a = v[k];
      const double* x = X + static_cast<int64_t>(cl[k]) * t;
      for (int64_t c = 0; c < t; ++c) y[c] += a * x[c];
    }
  }
}

}  // namespace

void sparse_symmetric_operator::apply(int64_t t, const double* X, double* Y, int threads) const {
  PMX_EXPECTS(t >= 0, "t >= 0");
  if (n_ == 0 || t == 0) return;
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  if (!col32_.empty() || col_.empty())
    multiply_rows(n_, row_start_.data(), col32_.data(), value_.data(), t, X, Y, nt);
  else
    multiply_rows(n_, row_start_.data(), col_.data(), value_.data(), t, X, Y, nt);
}

void symmetric_multiply(const sparse_symmetric& s, int64_t t, const double* X, double* Y,
                        int threads) {
  sparse_symmetric_operator(s).apply(t, X, Y, threads);
}

}  // namespace pmx
