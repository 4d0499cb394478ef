// ldl_sweeps: the level schedule of a factor (built once, on the host), validation and dispatch.
#include "panoramix/ops/ldl_sweeps.hpp"

#include <algorithm>

#include "ops/ldl_sweeps/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

namespace {

// Items 0..n-1 ordered by level (counting sort, stable), with the offsets of each level.
void order_by_level(const std::vector<int64_t>& level, std::vector<int64_t>& order, std::vector<int64_t>& start) {
  const auto n = static_cast<int64_t>(level.size());
  const int64_t top = n ? *std::max_element(level.begin(), level.end()) : -1;
  start.assign(static_cast<size_t>(top + 2), 0);
  for (int64_t v : level) ++start[v + 1];
  for (int64_t l = 0; l <= top; ++l) start[l + 1] += start[l];
  order.resize(static_cast<size_t>(n));
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < n; ++i) order[fill[level[i]]++] = i;
}

ldl_schedule make_schedule(const ldl_factor_view& f) {
  const int64_t n = f.n;
  const int64_t *p = f.p, *nz = f.nz, *row = f.row;
  const double* x = f.x;
  ldl_schedule s;
  s.n = n;
  s.perm.resize(n), s.inverse_perm.resize(n), s.d.resize(n);
  // Levels in the factor's numbering. Forward (L y = b): row i waits for the rows j < i it reads
  // (its nonzeros L_ij). Backward (Lᵀ w = D⁻¹ y): row j waits for the rows i > j of column j.
  std::vector<int64_t> level(n, 0), forward_order, backward_order;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t q = 1; q < nz[j]; ++q) level[row[p[j] + q]] = std::max(level[row[p[j] + q]], level[j] + 1);
  order_by_level(level, forward_order, s.forward_level);
  // Renumber the system in forward-level order: the forward sweep then reads its rows, and writes
  // its results, front to back.
  std::vector<int64_t> to_new(n);
  for (int64_t k = 0; k < n; ++k) {
    to_new[forward_order[k]] = k;
    s.perm[k] = f.perm ? f.perm[forward_order[k]] : forward_order[k];
  }
  for (int64_t k = 0; k < n; ++k) s.inverse_perm[s.perm[k]] = k;
  // Strictly lower L by columns in the new numbering (rows of a column: any order).
  std::vector<int64_t> cs(n + 1, 0), cr;
  std::vector<double> cv;
  for (int64_t k = 0; k < n; ++k) cs[k + 1] = cs[k] + nz[forward_order[k]] - 1;
  cr.resize(cs[n]);
  cv.resize(cs[n]);
  s.row_start.assign(n + 1, 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t j = forward_order[k];
    s.d[k] = x[p[j]];
    for (int64_t q = 1; q < nz[j]; ++q) {
      cr[cs[k] + q - 1] = to_new[row[p[j] + q]];
      cv[cs[k] + q - 1] = x[p[j] + q];
      ++s.row_start[to_new[row[p[j] + q]] + 1];
    }
  }
  // By rows for the forward sweep, in order.
  for (int64_t i = 0; i < n; ++i) s.row_start[i + 1] += s.row_start[i];
  s.row_col.resize(s.row_start[n]);
  s.row_val.resize(s.row_start[n]);
  {
    std::vector<int64_t> fill(s.row_start.begin(), s.row_start.end() - 1);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t q = cs[k]; q < cs[k + 1]; ++q) {
        s.row_col[fill[cr[q]]] = k;
        s.row_val[fill[cr[q]]++] = cv[q];
      }
  }
  // Backward levels, and the columns laid out in the order the backward sweep visits them.
  std::fill(level.begin(), level.end(), 0);
  for (int64_t j = n - 1; j >= 0; --j)
    for (int64_t q = 1; q < nz[j]; ++q) level[j] = std::max(level[j], level[row[p[j] + q]] + 1);
  std::vector<int64_t> backward_level_of_new(n);
  for (int64_t k = 0; k < n; ++k) backward_level_of_new[k] = level[forward_order[k]];
  order_by_level(backward_level_of_new, s.backward_col, s.backward_level);
  s.col_start.assign(n + 1, 0);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t k = s.backward_col[b];
    s.col_start[b + 1] = s.col_start[b] + cs[k + 1] - cs[k];
  }
  s.col_row.resize(s.col_start[n]);
  s.col_val.resize(s.col_start[n]);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t k = s.backward_col[b];
    std::copy(cr.begin() + cs[k], cr.begin() + cs[k + 1], s.col_row.begin() + s.col_start[b]);
    std::copy(cv.begin() + cs[k], cv.begin() + cs[k + 1], s.col_val.begin() + s.col_start[b]);
  }
  return s;
}

}  // namespace

ldl_sweeps::ldl_sweeps(const executor& exec, const ldl_factor_view& f) : exec_(exec) {
  PMX_EXPECTS(f.n >= 0, "negative factor order");
  PMX_EXPECTS(f.n == 0 || (f.p && f.nz && f.row && f.x), "a factor with column pointers, counts, rows and values");
  for (int64_t j = 0; j < f.n; ++j) {
    PMX_EXPECTS(f.nz[j] >= 1 && f.row[f.p[j]] == j, "each column starts with its diagonal");
    for (int64_t q = 1; q < f.nz[j]; ++q)
      PMX_EXPECTS(f.row[f.p[j] + q] > j && f.row[f.p[j] + q] < f.n, "L's entries lie below the diagonal");
  }
  s_ = make_schedule(f);
  if (exec.kind() == backend::cuda && s_.n > 0) device_.reset(kernels::cuda::upload_ldl_sweeps(exec, s_));
}
ldl_sweeps::ldl_sweeps(const executor& exec, const ldl_sweeps& other) : exec_(exec), s_(other.s_) {
  if (exec.kind() == backend::cuda && s_.n > 0) device_.reset(kernels::cuda::upload_ldl_sweeps(exec, s_));
}
ldl_sweeps::~ldl_sweeps() = default;
ldl_sweeps::ldl_sweeps(ldl_sweeps&&) noexcept = default;
ldl_sweeps& ldl_sweeps::operator=(ldl_sweeps&&) noexcept = default;
void ldl_sweeps::device_copy_deleter::operator()(device_copy* d) const { kernels::cuda::release_ldl_sweeps(d); }

void ldl_solve_permuted(const ldl_sweeps& s, int64_t t, double* W) {
  PMX_EXPECTS(t >= 0, "t >= 0");
  if (s.empty() || t == 0) return;
  PMX_EXPECTS(W, "W is not null");
  switch (s.exec().kind()) {
    case backend::reference: return kernels::reference::ldl_solve_permuted(s, t, W);
    case backend::cpu: return kernels::cpu::ldl_solve_permuted(s, t, W);
    case backend::cuda: return kernels::cuda::ldl_solve_permuted(s, t, W);
  }
}

}  // namespace pmx
