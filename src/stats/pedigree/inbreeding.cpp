// Inbreeding coefficients by Colleau (2002) on each sire's reduced pedigree (Sargolzaei, Iwaisaki
// & Colleau 2005) or Meuwissen & Luo (1992) per family, parallel over the sires of one depth.
// Internally the animals are renumbered by depth (longest path to a founder), so that every
// ancestor set walked in topological order is walked in increasing memory order.
#include <omp.h>

#include <algorithm>
#include <bit>
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

namespace {

constexpr int64_t unknown = pedigree::unknown;

// The pedigree renumbered by depth (stable within a depth): parents still come first, and the
// animals of one depth, which are independent for inbreeding, are the range level[d]..level[d+1].
struct depth_ordered {
  std::vector<int64_t> sire, dam, original;  // in depth order; original: index in the pedigree
  std::vector<int64_t> level;                // max_depth + 2 offsets
};

depth_ordered order_by_depth(const pedigree& ped) {
  const int64_t n = ped.size();
  std::vector<int32_t> depth(n, 0);
  int32_t max_depth = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t d = -1;
    if (ped.sire(i) != unknown) d = std::max(d, depth[ped.sire(i)]);
    if (ped.dam(i) != unknown) d = std::max(d, depth[ped.dam(i)]);
    depth[i] = d + 1;
    max_depth = std::max(max_depth, depth[i]);
  }
  depth_ordered o;
  o.level.assign(max_depth + 2, 0);
  for (int64_t i = 0; i < n; ++i) ++o.level[depth[i] + 1];
  for (int32_t d = 0; d <= max_depth; ++d) o.level[d + 1] += o.level[d];
  std::vector<int64_t> rank(n), fill(o.level.begin(), o.level.end() - 1);
  o.original.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    rank[i] = fill[depth[i]]++;
    o.original[rank[i]] = i;
  }
  o.sire.resize(n);
  o.dam.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    const int64_t i = o.original[r];
    o.sire[r] = ped.sire(i) == unknown ? unknown : rank[ped.sire(i)];
    o.dam[r] = ped.dam(i) == unknown ? unknown : rank[ped.dam(i)];
  }
  return o;
}

// Per-thread workspace: L and z (n doubles each, zero between uses), a bit per animal marking
// the reduced pedigree being collected (zero between uses), and lists.
struct workspace {
  std::vector<double> L, z;  // n each (Meuwissen & Luo) or U × batch (Colleau)
  std::vector<uint64_t> bits;
  std::vector<int64_t> members, ordered, heap, local, local_sire, local_dam;
};

constexpr int64_t batch = 8;  // sires sharing one walk of their reduced pedigrees

}  // namespace

std::vector<double> inbreeding(const pedigree& ped, int threads, inbreeding_method method,
                               progress_sink* progress) {
  const int64_t n = ped.size();
  std::vector<double> F(n, 0.0), D(n, 1.0);  // depth order until the end
  if (n == 0) return F;
  const depth_ordered o = order_by_depth(ped);
  const auto& sire = o.sire;
  const auto& dam = o.dam;
  const int32_t max_depth = static_cast<int32_t>(o.level.size()) - 2;
  auto both_known = [&](int64_t i) { return sire[i] != unknown && dam[i] != unknown; };
  auto full_sibs = [&](int64_t x, int64_t y) {
    return both_known(x) && sire[x] == sire[y] && dam[x] == dam[y];
  };
  std::vector<int32_t> depth(n);
  for (int32_t d = 0; d <= max_depth; ++d)
    std::fill(depth.begin() + o.level[d], depth.begin() + o.level[d + 1], d);

  // Progeny with both parents known, grouped by sire (sorted by dam within), and the sires of
  // each depth: a sire's progeny are all deeper than it. Sires are in depth order already.
  std::vector<int64_t> progeny, sire_start, sires_at_depth_start(max_depth + 2, 0);
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

  // Within each depth, full sibs adjacent (by sire, dam): Meuwissen & Luo trace the first of a
  // full-sib family, the others copy its F.
  std::vector<int64_t> by_level(n);
  for (int64_t i = 0; i < n; ++i) by_level[i] = i;
  const bool trace = method == inbreeding_method::meuwissen_luo;

  // Progress in units of work, not animals: a level's walks visit at most the animals above it,
  // so a level weighs (its walks) x (animals of smaller depth) + its animals. In a chain that is
  // the real cost (each level one walk over everything above); elsewhere an upper bound.
  std::vector<double> done_after(max_depth + 1, 0.0);
  for (int32_t lev = 1; lev <= max_depth; ++lev) {
    const int64_t walks = trace ? o.level[lev + 1] - o.level[lev]
                                : (sires_at_depth_start[lev] - sires_at_depth_start[lev - 1] + batch - 1) / batch;
    done_after[lev] = done_after[lev - 1] + static_cast<double>(walks) * static_cast<double>(o.level[lev]) +
                      static_cast<double>(o.level[lev + 1] - o.level[lev]);
  }
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  std::vector<workspace> work(nt);
  for (int32_t lev = 1; lev <= max_depth; ++lev) {
    const int64_t b = o.level[lev], e = o.level[lev + 1];
    const int64_t sb = sires_at_depth_start[lev - 1], se = sires_at_depth_start[lev];
    if (trace)
      std::sort(by_level.begin() + b, by_level.begin() + e, [&](int64_t x, int64_t y) {
        return sire[x] != sire[y] ? sire[x] < sire[y] : dam[x] != dam[y] ? dam[x] < dam[y] : x < y;
      });
#pragma omp parallel num_threads(nt) if (trace ? e - b >= 64 : se - sb >= 2)
    {
      workspace& w = work[omp_get_thread_num()];

      // Colleau (2002) on the sires' reduced pedigree (Sargolzaei, Iwaisaki & Colleau 2005):
      // z = T D Tᵀe_s = A e_s gives a_sd = z_d for every mate d of sire s at once. U = the
      // sire, its mates and all their ancestors is closed under "parent of", so both passes stay
      // inside it: Tᵀe_s up from s (each ancestor passes half its coefficient to each parent,
      // youngest first), then z_j = (Tᵀe_s)_j D_j + (z_sire + z_dam)/2 down from the founders.
      // Up to `batch` sires share one pass over the union of their U (in deep pedigrees these
      // sets are nearly the same: the walk is shared, the arithmetic is `batch` wide); each
      // sire's column gets exactly the operations it would get alone (extra members add zeros),
      // so F does not depend on the batching. U is collected breadth-first into a bitmap and
      // read back in index order, which is topological (depth order), then numbered locally:
      // O(|U| (1 + batch/8)) per batch. Sires one level shallower than this level: the D of
      // all their ancestors are known, all that is needed for their progeny.
      if (!trace) {
        if (w.bits.empty()) {
          w.bits.assign((n + 63) / 64, 0);
          w.local.resize(n);
        }
        uint64_t* bits = w.bits.data();
        int64_t* local = w.local.data();
        const int64_t n_batches = (se - sb + batch - 1) / batch;
#pragma omp for schedule(dynamic, 1)
        for (int64_t q = 0; q < n_batches; ++q) {
          const int64_t t0 = sb + q * batch, t1 = std::min(se, t0 + batch);
          const int64_t nb = t1 - t0;
          auto& members = w.members;
          members.clear();
          int64_t lo = n, hi = -1;
          auto visit = [&](int64_t j) {
            if (j == unknown) return;
            const uint64_t bit = uint64_t{1} << (j & 63);
            if (bits[j >> 6] & bit) return;
            bits[j >> 6] |= bit;
            members.push_back(j);
            lo = std::min(lo, j);
            hi = std::max(hi, j);
          };
          for (int64_t t = t0; t < t1; ++t) {
            visit(sire[progeny[sire_start[t]]]);
            for (int64_t k = sire_start[t]; k < sire_start[t + 1]; ++k) visit(dam[progeny[k]]);
          }
          for (size_t m = 0; m < members.size(); ++m) {  // members grows: breadth-first closure
            visit(sire[members[m]]);
            visit(dam[members[m]]);
          }
          auto& ordered = w.ordered;  // U in index order; clears the bitmap on the way
          ordered.clear();
          for (int64_t word = lo >> 6; word <= hi >> 6; ++word) {
            uint64_t x = bits[word];
            bits[word] = 0;
            while (x) {
              local[word * 64 + std::countr_zero(x)] = static_cast<int64_t>(ordered.size());
              ordered.push_back(word * 64 + std::countr_zero(x));
              x &= x - 1;
            }
          }
          const int64_t u = static_cast<int64_t>(ordered.size());
          auto& ps = w.local_sire;
          auto& pd = w.local_dam;
          ps.resize(u);
          pd.resize(u);
          for (int64_t k = 0; k < u; ++k) {
            const int64_t j = ordered[k];
            ps[k] = sire[j] == unknown ? -1 : local[sire[j]];
            pd[k] = dam[j] == unknown ? -1 : local[dam[j]];
          }
          // L and z: u × batch, row-major (column c: sire t0 + c).
          auto& L = w.L;
          auto& z = w.z;
          L.assign(u * batch, 0.0);
          z.resize(u * batch);
          int64_t top = 0;
          for (int64_t c = 0; c < nb; ++c) {
            const int64_t ks = local[sire[progeny[sire_start[t0 + c]]]];
            L[ks * batch + c] = 1.0;
            top = std::max(top, ks);
          }
          // Tᵀe_s: only the sires and their ancestors, all at or before the youngest sire.
          for (int64_t k = top; k >= 0; --k) {
            const double* l = &L[k * batch];
            bool any = false;
            for (int64_t c = 0; c < batch; ++c) any |= l[c] != 0.0;
            if (!any) continue;
            if (ps[k] >= 0)
              for (int64_t c = 0; c < batch; ++c) L[ps[k] * batch + c] += 0.5 * l[c];
            if (pd[k] >= 0)
              for (int64_t c = 0; c < batch; ++c) L[pd[k] * batch + c] += 0.5 * l[c];
          }
          for (int64_t k = 0; k < u; ++k) {
            const double dj = D[ordered[k]];
            double* zk = &z[k * batch];
            const double* lk = &L[k * batch];
            for (int64_t c = 0; c < batch; ++c) zk[c] = lk[c] * dj;
            if (ps[k] >= 0)
              for (int64_t c = 0; c < batch; ++c) zk[c] += 0.5 * z[ps[k] * batch + c];
            if (pd[k] >= 0)
              for (int64_t c = 0; c < batch; ++c) zk[c] += 0.5 * z[pd[k] * batch + c];
          }
          for (int64_t c = 0; c < nb; ++c)
            for (int64_t k = sire_start[t0 + c]; k < sire_start[t0 + c + 1]; ++k)
              F[progeny[k]] = 0.5 * z[local[dam[progeny[k]]] * batch + c];
        }
      }

      // Meuwissen & Luo for the families of this depth: row i of L (A = L D Lᵀ) from L_ii = 1,
      // each ancestor j passing L_ij/2 to its parents; taking ancestors from the youngest down
      // (a max-heap) makes L_ij complete when j is taken; F_i = Σ_j L_ij² D_j − 1. L[j] = 0
      // marks "not in the heap". Full sibs copy the first one's F afterwards.
      if (trace) {
        if (w.L.empty()) w.L.assign(n, 0.0);
        double* L = w.L.data();
        auto& heap = w.heap;
#pragma omp for schedule(dynamic, 16)
        for (int64_t k = b; k < e; ++k) {
          const int64_t i = by_level[k];
          if (!both_known(i) || (k > b && full_sibs(by_level[k - 1], i))) continue;
          double sum = 0.5 - 0.25 * (F[sire[i]] + F[dam[i]]);  // L_ii² D_i
          heap.clear();
          auto add = [&](int64_t p, double v) {
            if (p == unknown) return;
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
    }
    if (trace)
      for (int64_t k = b + 1; k < e; ++k)
        if (full_sibs(by_level[k - 1], by_level[k])) F[by_level[k]] = F[by_level[k - 1]];
    // D of this level's animals (their parents' F is final): needed by deeper animals. An
    // unknown parent counts as F = −1, as in mendelian_variances.
    for (int64_t i = b; i < e; ++i) {
      const double fs = sire[i] == unknown ? -1.0 : F[sire[i]];
      const double fd = dam[i] == unknown ? -1.0 : F[dam[i]];
      D[i] = 0.5 - 0.25 * (fs + fd);
    }
    // A deep pedigree (a chain of a million generations) takes long: say how far it has come.
    report(progress, "inbreeding", done_after[lev] / done_after[max_depth]);
  }
  std::vector<double> out(n);
  for (int64_t r = 0; r < n; ++r) out[o.original[r]] = F[r];
  return out;
}

}  // namespace pmx
