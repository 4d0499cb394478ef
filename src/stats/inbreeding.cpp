// Inbreeding coefficients by Meuwissen & Luo (1992), parallel over animals of equal depth.
#include <omp.h>

#include <algorithm>

#include "panoramix/pedigree.hpp"

namespace pmx {

std::vector<double> mendelian_variances(const pedigree& ped, const std::vector<double>& F) {
  const int64_t n = ped.size();
  std::vector<double> D(n);
  for (int64_t i = 0; i < n; ++i) {
    // An unknown parent counts as F = −1: D = 1/2 − (F_s + F_d)/4 covers all three cases.
    const double fs = ped.sire(i) == pedigree::unknown ? -1.0 : F[ped.sire(i)];
    const double fd = ped.dam(i) == pedigree::unknown ? -1.0 : F[ped.dam(i)];
    D[i] = 0.5 - 0.25 * (fs + fd);
  }
  return D;
}

std::vector<double> inbreeding(const pedigree& ped, int threads) {
  const int64_t n = ped.size();
  const auto& sire = ped.sires();
  const auto& dam = ped.dams();
  std::vector<double> F(n, 0.0), D(n, 1.0);
  if (n == 0) return F;

  // Depth = longest path to a founder. F_i needs D of i's ancestors, which need F of their
  // parents: all of smaller depth than i, so the animals of one depth are independent.
  std::vector<int32_t> depth(n, 0);
  int32_t max_depth = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t d = -1;
    if (sire[i] != pedigree::unknown) d = std::max(d, depth[sire[i]]);
    if (dam[i] != pedigree::unknown) d = std::max(d, depth[dam[i]]);
    depth[i] = d + 1;
    max_depth = std::max(max_depth, depth[i]);
  }
  // Animals with a known parent, by depth, full sibs adjacent (sorted by sire, dam): the first
  // of each full-sib family is traced, the others copy its F.
  std::vector<int64_t> level_start(max_depth + 2, 0), by_level;
  for (int64_t i = 0; i < n; ++i)
    if (depth[i] > 0) ++level_start[depth[i] + 1];
  for (int32_t d = 0; d <= max_depth; ++d) level_start[d + 1] += level_start[d];
  by_level.resize(level_start[max_depth + 1]);
  {
    std::vector<int64_t> fill(level_start.begin(), level_start.end() - 1);
    for (int64_t i = 0; i < n; ++i)
      if (depth[i] > 0) by_level[fill[depth[i]]++] = i;
  }
  auto both_known = [&](int64_t i) {
    return sire[i] != pedigree::unknown && dam[i] != pedigree::unknown;
  };
  auto full_sibs = [&](int64_t x, int64_t y) {
    return both_known(x) && sire[x] == sire[y] && dam[x] == dam[y];
  };

  const int nt = threads > 0 ? threads : omp_get_max_threads();
  std::vector<std::vector<double>> work(nt);  // one n-vector per thread, allocated on first use
  for (int32_t lev = 1; lev <= max_depth; ++lev) {
    const int64_t b = level_start[lev], e = level_start[lev + 1];
    if (b == e) continue;
    std::sort(by_level.begin() + b, by_level.begin() + e, [&](int64_t x, int64_t y) {
      return sire[x] != sire[y] ? sire[x] < sire[y] : dam[x] != dam[y] ? dam[x] < dam[y] : x < y;
    });
#pragma omp parallel num_threads(nt) if (e - b >= 64)
    {
      // L[j]: coefficient of ancestor j in the row of L being traced; 0 = not in the heap.
      std::vector<double>& L = work[omp_get_thread_num()];
      if (L.empty()) L.assign(n, 0.0);
      std::vector<int64_t> heap;
#pragma omp for schedule(dynamic, 64)
      for (int64_t k = b; k < e; ++k) {
        const int64_t i = by_level[k];
        if (!both_known(i)) continue;  // F = 0 with an unknown parent
        if (k > b && full_sibs(by_level[k - 1], i)) continue;  // copied below
        // Row i of L (A = L D Lᵀ): L_ii = 1, each ancestor j passes L_ij/2 to its parents;
        // taking ancestors from the youngest down makes L_ij complete when j is taken.
        double sum = 0.5 - 0.25 * (F[sire[i]] + F[dam[i]]);  // L_ii² D_i (D_i set after the level)
        heap.clear();
        auto add = [&](int64_t p, double v) {
          if (p == pedigree::unknown) return;
          if (L[p] == 0.0) {
            heap.push_back(p);
            std::push_heap(heap.begin(), heap.end());
          }
          L[p] += v;
        };
        add(sire[i], 0.5);
        add(dam[i], 0.5);
        while (!heap.empty()) {
          std::pop_heap(heap.begin(), heap.end());
          const int64_t j = heap.back();
          heap.pop_back();
          const double l = L[j];
          L[j] = 0.0;
          sum += l * l * D[j];
          add(sire[j], 0.5 * l);
          add(dam[j], 0.5 * l);
        }
        F[i] = sum - 1.0;
      }
    }
    for (int64_t k = b + 1; k < e; ++k)
      if (full_sibs(by_level[k - 1], by_level[k])) F[by_level[k]] = F[by_level[k - 1]];
    // D of this level's animals (their parents' F is final): needed by deeper animals. An
    // unknown parent counts as F = −1, as in mendelian_variances.
    for (int64_t k = b; k < e; ++k) {
      const int64_t i = by_level[k];
      const double fs = sire[i] == pedigree::unknown ? -1.0 : F[sire[i]];
      const double fd = dam[i] == pedigree::unknown ? -1.0 : F[dam[i]];
      D[i] = 0.5 - 0.25 * (fs + fd);
    }
  }
  return F;
}

}  // namespace pmx
