// A⁻¹ by Henderson's rules with inbreeding (Quaas 1976), assembled as a lower-triangle CSR.
#include <omp.h>

#include <algorithm>

#include "panoramix/error.hpp"
#include "panoramix/pedigree.hpp"

namespace pmx {

double sparse_symmetric::at(int64_t i, int64_t j) const {
  if (i < j) std::swap(i, j);
  const auto b = col.begin() + row_start[i], e = col.begin() + row_start[i + 1];
  const auto it = std::lower_bound(b, e, j);
  return it != e && *it == j ? value[it - col.begin()] : 0.0;
}

sparse_symmetric a_inverse(const pedigree& ped, const std::vector<double>& F_in, int threads) {
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const int64_t n = ped.size();
  const std::vector<double> F = F_in.empty() ? inbreeding(ped) : F_in;
  PMX_EXPECTS(static_cast<int64_t>(F.size()) == n, "one inbreeding coefficient per animal");
  const std::vector<double> D = mendelian_variances(ped, F);

  // A⁻¹ = (I − P)ᵀ D⁻¹ (I − P) with P holding 1/2 at (i, parent): animal i contributes
  // b = 1/D_i times the outer product of (1 at i, −1/2 at each known parent). Each contribution
  // is placed in the row of its larger index (the lower triangle); parents come before i.
  auto for_each_term = [&](auto&& put) {
    for (int64_t i = 0; i < n; ++i) {
      const double b = 1.0 / D[i];
      int64_t p[2];
      int np = 0;
      if (ped.sire(i) != pedigree::unknown) p[np++] = ped.sire(i);
      if (ped.dam(i) != pedigree::unknown) p[np++] = ped.dam(i);
      put(i, i, b);
      for (int a = 0; a < np; ++a) {
        put(i, p[a], -0.5 * b);
        put(p[a], p[a], 0.25 * b);
      }
      if (np == 2) put(std::max(p[0], p[1]), std::min(p[0], p[1]), 0.25 * b);
    }
  };
  std::vector<int64_t> count(n + 1, 0);
  for_each_term([&](int64_t r, int64_t, double) { ++count[r + 1]; });
  for (int64_t r = 0; r < n; ++r) count[r + 1] += count[r];
  std::vector<int64_t> tcol(count[n]);
  std::vector<double> tval(count[n]);
  {
    std::vector<int64_t> fill(count.begin(), count.end() - 1);
    for_each_term([&](int64_t r, int64_t c, double v) {
      tcol[fill[r]] = c;
      tval[fill[r]++] = v;
    });
  }

  // Sort each row by column and sum duplicates, in place in its own range: rows are independent
  // and each is merged by one thread in its own order, so the sums do not depend on the thread
  // count (one thread sorted all 26.5 M rows of a national pedigree in 15.5 s).
  std::vector<int64_t> merged(n + 1, 0);
#pragma omp parallel num_threads(nt)
  {
    std::vector<std::pair<int64_t, double>> row;
#pragma omp for schedule(dynamic, 4096)
    for (int64_t r = 0; r < n; ++r) {
      row.clear();
      for (int64_t k = count[r]; k < count[r + 1]; ++k) row.emplace_back(tcol[k], tval[k]);
      std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      int64_t at = count[r];
      for (size_t k = 0; k < row.size(); ++k) {
        if (k > 0 && row[k].first == row[k - 1].first) {
          tval[at - 1] += row[k].second;
        } else {
          tcol[at] = row[k].first;
          tval[at++] = row[k].second;
        }
      }
      merged[r + 1] = at - count[r];
    }
  }
  sparse_symmetric out;
  out.n = n;
  out.row_start.assign(n + 1, 0);
  for (int64_t r = 0; r < n; ++r) out.row_start[r + 1] = out.row_start[r] + merged[r + 1];
  out.col.resize(out.row_start[n]);
  out.value.resize(out.row_start[n]);
#pragma omp parallel for num_threads(nt) schedule(static, 65536)
  for (int64_t r = 0; r < n; ++r) {
    std::copy(tcol.begin() + count[r], tcol.begin() + count[r] + merged[r + 1], out.col.begin() + out.row_start[r]);
    std::copy(tval.begin() + count[r], tval.begin() + count[r] + merged[r + 1], out.value.begin() + out.row_start[r]);
  }
  return out;
}

}  // namespace pmx
