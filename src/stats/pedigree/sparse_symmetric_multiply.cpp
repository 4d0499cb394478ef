// Y = S X for a sparse symmetric S stored as its lower triangle: both triangles are laid out once
// in one CSR so that rows of Y are independent (parallel without atomics, fixed summation order);
// the products are the sparse_product op's.
#include <limits>

#include "panoramix/error.hpp"
#include "panoramix/genotyped_a_inverse.hpp"
#include "panoramix/ops/sparse_product.hpp"

namespace pmx {

sparse_symmetric_operator::sparse_symmetric_operator(const sparse_symmetric& s, const executor& host)
    : n_(s.n), host_(host.host()) {
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

csr_view sparse_symmetric_operator::csr() const {
  csr_view v;
  v.n = n_;
  v.row_start = row_start_.data();
  if (col_.empty()) v.col32 = col32_.data();
  else v.col64 = col_.data();
  v.value = value_.data();
  return v;
}

void sparse_symmetric_operator::apply(int64_t t, const double* X, double* Y, int threads) const {
  PMX_EXPECTS(t >= 0, "t >= 0");
  if (n_ == 0 || t == 0) return;
  sparse_multiply(sparse_operand(threads > 0 ? host_.with_threads(threads) : host_, csr()), t, X, Y);
}

void symmetric_multiply(const sparse_symmetric& s, int64_t t, const double* X, double* Y,
                        int threads) {
  sparse_symmetric_operator(s).apply(t, X, Y, threads);
}

}  // namespace pmx
