// Level-scheduled LDLᵀ solves (see ldl_level_solve.hpp).
#include "ldl_level_solve.hpp"

#include <omp.h>

#include <algorithm>

namespace pmx {

namespace {

// Items 0..n-1 ordered by level (counting sort, stable), with the offsets of each level.
void order_by_level(const std::vector<int64_t>& level, std::vector<int64_t>& order,
                    std::vector<int64_t>& start) {
  const int64_t n = static_cast<int64_t>(level.size());
  const int64_t top = n ? *std::max_element(level.begin(), level.end()) : -1;
  start.assign(top + 2, 0);
  for (int64_t v : level) ++start[v + 1];
  for (int64_t l = 0; l <= top; ++l) start[l + 1] += start[l];
  order.resize(n);
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < n; ++i) order[fill[level[i]]++] = i;
}

}  // namespace

ldl_level_solver::ldl_level_solver(int64_t n, const int64_t* perm, const int64_t* p,
                                   const int64_t* nz, const int64_t* row, const double* x)
    : n_(n), perm_(n), iperm_(n), d_(n) {
  // Levels in the factor's numbering. Forward (L y = b): row i waits for the rows j < i it
  // reads (its nonzeros L_ij). Backward (Lᵀ w = D⁻¹ y): row j waits for the rows i > j of
  // column j.
  std::vector<int64_t> level(n, 0), forward_order, backward_order;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t q = 1; q < nz[j]; ++q)
      level[row[p[j] + q]] = std::max(level[row[p[j] + q]], level[j] + 1);
  order_by_level(level, forward_order, forward_level_);
  // Renumber the system in forward-level order: the forward sweep then reads its rows, and
  // writes its results, front to back.
  std::vector<int64_t> to_new(n);
  for (int64_t k = 0; k < n; ++k) {
    to_new[forward_order[k]] = k;
    perm_[k] = perm[forward_order[k]];
  }
  for (int64_t k = 0; k < n; ++k) iperm_[perm_[k]] = k;
  // Strictly lower L by columns in the new numbering (rows of a column: any order).
  std::vector<int64_t> cs(n + 1, 0), cr;
  std::vector<double> cv;
  for (int64_t k = 0; k < n; ++k) cs[k + 1] = cs[k] + nz[forward_order[k]] - 1;
  cr.resize(cs[n]);
  cv.resize(cs[n]);
  row_start_.assign(n + 1, 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t j = forward_order[k];
    d_[k] = x[p[j]];
    for (int64_t q = 1; q < nz[j]; ++q) {
      cr[cs[k] + q - 1] = to_new[row[p[j] + q]];
      cv[cs[k] + q - 1] = x[p[j] + q];
      ++row_start_[to_new[row[p[j] + q]] + 1];
    }
  }
  // By rows for the forward sweep, in order.
  for (int64_t i = 0; i < n; ++i) row_start_[i + 1] += row_start_[i];
  row_col_.resize(row_start_[n]);
  row_val_.resize(row_start_[n]);
  {
    std::vector<int64_t> fill(row_start_.begin(), row_start_.end() - 1);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t q = cs[k]; q < cs[k + 1]; ++q) {
        row_col_[fill[cr[q]]] = k;
        row_val_[fill[cr[q]]++] = cv[q];
      }
  }
  // Backward levels, and the columns laid out in the order the backward sweep visits them.
  std::fill(level.begin(), level.end(), 0);
  for (int64_t j = n - 1; j >= 0; --j)
    for (int64_t q = 1; q < nz[j]; ++q) level[j] = std::max(level[j], level[row[p[j] + q]] + 1);
  std::vector<int64_t> backward_level_of_new(n);
  for (int64_t k = 0; k < n; ++k) backward_level_of_new[k] = level[forward_order[k]];
  order_by_level(backward_level_of_new, backward_col_, backward_level_);
  col_start_.assign(n + 1, 0);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t k = backward_col_[b];
    col_start_[b + 1] = col_start_[b] + cs[k + 1] - cs[k];
  }
  col_row_.resize(col_start_[n]);
  col_val_.resize(col_start_[n]);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t k = backward_col_[b];
    std::copy(cr.begin() + cs[k], cr.begin() + cs[k + 1], col_row_.begin() + col_start_[b]);
    std::copy(cv.begin() + cs[k], cv.begin() + cs[k + 1], col_val_.begin() + col_start_[b]);
  }
}

void ldl_level_solver::solve_permuted(int64_t t, double* W, int threads) const {
  if (n_ == 0 || t == 0) return;
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const int64_t nf = static_cast<int64_t>(forward_level_.size()) - 1;
  const int64_t nb = static_cast<int64_t>(backward_level_.size()) - 1;
#pragma omp parallel num_threads(nt) if (n_ * t > 20000)
  {
    // y_i = b_i − Σ_{j<i} L_ij y_j, level by level (the implicit barrier ends each level).
    for (int64_t l = 0; l < nf; ++l) {
#pragma omp for schedule(static)
      for (int64_t i = forward_level_[l]; i < forward_level_[l + 1]; ++i) {
        double* wi = W + i * t;
        for (int64_t e = row_start_[i]; e < row_start_[i + 1]; ++e) {
          const double a = row_val_[e];
          const double* wj = W + row_col_[e] * t;
          for (int64_t c = 0; c < t; ++c) wi[c] -= a * wj[c];
        }
      }
    }
    // w_j = y_j / D_j − Σ_{i>j} L_ij w_i.
    for (int64_t l = 0; l < nb; ++l) {
#pragma omp for schedule(static)
      for (int64_t b = backward_level_[l]; b < backward_level_[l + 1]; ++b) {
        const int64_t j = backward_col_[b];
        double* wj = W + j * t;
        for (int64_t c = 0; c < t; ++c) wj[c] /= d_[j];
        for (int64_t e = col_start_[b]; e < col_start_[b + 1]; ++e) {
          const double a = col_val_[e];
          const double* wi = W + col_row_[e] * t;
          for (int64_t c = 0; c < t; ++c) wj[c] -= a * wi[c];
        }
      }
    }
  }
}

}  // namespace pmx
