// Inbreeding coefficients by Meuwissen & Luo (1992) or Colleau (2002) per sire, parallel over the
// sires of animals of equal depth.
#include <omp.h>

#include <algorithm>
#include <cmath>

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

std::vector<double> inbreeding(const pedigree& ped, int threads, inbreeding_method method) {
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

  // Progeny with both parents known, grouped by sire (sorted by dam within), and the sires
  // of each depth: a sire's progeny are all deeper than it.
  std::vector<int64_t> progeny, sire_start, sires_at_depth_start(max_depth + 2, 0), sires_by_depth;
  for (int64_t i = 0; i < n; ++i)
    if (both_known(i)) progeny.push_back(i);
  std::sort(progeny.begin(), progeny.end(), [&](int64_t x, int64_t y) {
    return sire[x] != sire[y] ? sire[x] < sire[y] : dam[x] != dam[y] ? dam[x] < dam[y] : x < y;
  });
  for (int64_t k = 0; k < static_cast<int64_t>(progeny.size()); ++k)
    if (k == 0 || sire[progeny[k]] != sire[progeny[k - 1]]) sire_start.push_back(k);
  const int64_t n_sires = static_cast<int64_t>(sire_start.size());
  sire_start.push_back(static_cast<int64_t>(progeny.size()));
  for (int64_t g = 0; g < n_sires; ++g) ++sires_at_depth_start[depth[sire[progeny[sire_start[g]]]] + 1];
  for (int32_t d = 0; d <= max_depth; ++d) sires_at_depth_start[d + 1] += sires_at_depth_start[d];
  sires_by_depth.resize(n_sires);
  {
    std::vector<int64_t> fill(sires_at_depth_start.begin(), sires_at_depth_start.end() - 1);
    for (int64_t g = 0; g < n_sires; ++g)
      sires_by_depth[fill[depth[sire[progeny[sire_start[g]]]]]++] = g;
  }
  std::vector<char> traced(n, 0);  // 1: F computed per family by Meuwissen & Luo

  const int nt = threads > 0 ? threads : omp_get_max_threads();
  // Per thread: two n-vectors (allocated on first use), zero between uses.
  std::vector<std::vector<double>> work_l(nt), work_z(nt);
  for (int32_t lev = 1; lev <= max_depth; ++lev) {
    const int64_t b = level_start[lev], e = level_start[lev + 1];
    const int64_t sb = sires_at_depth_start[lev - 1], se = sires_at_depth_start[lev];
    std::sort(by_level.begin() + b, by_level.begin() + e, [&](int64_t x, int64_t y) {
      return sire[x] != sire[y] ? sire[x] < sire[y] : dam[x] != dam[y] ? dam[x] < dam[y] : x < y;
    });
#pragma omp parallel num_threads(nt) if (e - b + se - sb >= 64)
    {
      std::vector<double>& L = work_l[omp_get_thread_num()];
      std::vector<double>& z = work_z[omp_get_thread_num()];
      if (L.empty()) L.assign(n, 0.0);
      std::vector<int64_t> heap;

      // Sires one level shallower than this level: the D of all their ancestors are known, which
      // is all Colleau's method needs for every one of their progeny, at any depth.
#pragma omp for schedule(dynamic, 1)
      for (int64_t t = sb; t < se; ++t) {
        const int64_t gb = sire_start[sires_by_depth[t]], ge = sire_start[sires_by_depth[t] + 1];
        const int64_t s = sire[progeny[gb]];
        int64_t families = 0, hi = -1;
        for (int64_t k = gb; k < ge; ++k) {
          if (k > gb && dam[progeny[k]] == dam[progeny[k - 1]]) continue;
          ++families;
          hi = std::max(hi, dam[progeny[k]]);
        }
        // Colleau (2002): z = T D Tᵀe_s gives a_sd = z_d for every mate d at once. Tᵀe_s by one
        // pass up from s (each ancestor passes half its coefficient to each parent), then z by
        // one pass down over [lo, hi], lo the oldest ancestor: both linear scans, about
        // (s − lo) + (hi − lo) per sire. Sires whose scans would cost more than tracing each
        // family's ancestors go to Meuwissen & Luo, at each family's own depth.
        // Cost model of the automatic choice: Colleau at most s + hi (lo ≥ 0; the scans depend
        // on the numbering, not on depth), Meuwissen & Luo about 4 (heap) × ancestors per family,
        // ancestors at most 2^(depth+1) (the sire's side and the dam's, each at most a binary tree).
        const double ancestors_bound = std::ldexp(1.0, std::min<int32_t>(depth[s] + 1, 60));
        const bool colleau =
            method == inbreeding_method::colleau ||
            (method == inbreeding_method::automatic &&
             4.0 * families * std::min<double>(ancestors_bound, n) > double(s) + double(hi));
        if (!colleau) {
          for (int64_t k = gb; k < ge; ++k) traced[progeny[k]] = 1;
          continue;
        }
        if (z.empty()) z.assign(n, 0.0);
        L[s] = 1.0;
        int64_t lo = s, pending = 0;  // pending: nonzero L below the scan position
        for (int64_t j = s; j >= 0; --j) {
          if (L[j] == 0.0) continue;
          if (j < s) --pending;
          lo = j;
          for (int64_t p : {sire[j], dam[j]})
            if (p != pedigree::unknown) {
              pending += L[p] == 0.0;
              L[p] += 0.5 * L[j];
            }
          if (pending == 0) break;
        }
        for (int64_t j = lo; j <= hi; ++j) {
          double v = L[j] * D[j];
          if (sire[j] >= lo) v += 0.5 * z[sire[j]];
          if (dam[j] >= lo) v += 0.5 * z[dam[j]];
          z[j] = v;
        }
        for (int64_t k = gb; k < ge; ++k) F[progeny[k]] = 0.5 * z[dam[progeny[k]]];
        if (hi >= lo) std::fill(z.begin() + lo, z.begin() + hi + 1, 0.0);
        std::fill(L.begin() + lo, L.begin() + s + 1, 0.0);
      }

      // Meuwissen & Luo for the families of this depth left to it: row i of L (A = L D Lᵀ) from
      // L_ii = 1, each ancestor j passing L_ij/2 to its parents; taking ancestors from the
      // youngest down (a max-heap) makes L_ij complete when j is taken; F_i = Σ_j L_ij² D_j − 1.
      // L[j] = 0 marks "not in the heap". Full sibs copy the first one's F afterwards.
#pragma omp for schedule(dynamic, 16)
      for (int64_t k = b; k < e; ++k) {
        const int64_t i = by_level[k];
        if (!traced[i] || (k > b && full_sibs(by_level[k - 1], i))) continue;
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
      if (traced[by_level[k]] && full_sibs(by_level[k - 1], by_level[k]))
        F[by_level[k]] = F[by_level[k - 1]];
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
