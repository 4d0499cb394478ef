// Shared by the A_gg⁻¹ tests (CPU and GPU): a livestock-like pedigree, random blocks, and the
// error measure.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "panoramix/pedigree.hpp"

namespace pmx::test {

inline double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

/// max |x − y| / max |y|.
inline double relative_error(const std::vector<double>& x, const std::vector<double>& y) {
  EXPECT_EQ(x.size(), y.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
  return d / max_abs(y);
}

/// Random k × t matrix (row-major), entries in [−1, 1].
inline std::vector<double> random_block(int64_t k, int64_t t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> X(k * t);
  for (double& x : X) x = u(rng);
  return X;
}

/// Generations of `per` animals: 50 sires per generation from the one before, dams from the two
/// before, 3 % unknown dams; the sires and a random fifth of the others genotyped. Large enough
/// for the sweeps to run on threads.
struct typed_pedigree {
  pedigree ped;
  std::vector<int64_t> genotyped;
};

inline typed_pedigree livestock_pedigree(int64_t per, int64_t gens, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> sire(per * gens, -1), dam(per * gens, -1);
  std::vector<char> typed(per * gens, 0);
  for (int64_t gen = 1; gen < gens; ++gen)
    for (int64_t a = 0; a < per; ++a) {
      const int64_t i = gen * per + a;
      sire[i] = (gen - 1) * per + 2 * static_cast<int64_t>(rng() % 50) + 1;
      const int64_t back = gen >= 2 ? 1 + static_cast<int64_t>(rng() % 2) : 1;
      if (rng() % 100 >= 3) dam[i] = (gen - back) * per + 2 * static_cast<int64_t>(rng() % (per / 2));
      typed[sire[i]] = 1;
    }
  for (int64_t i = 0; i < per * gens; ++i) typed[i] |= rng() % 5 == 0;
  typed_pedigree out{pedigree::from_indices(sire, dam), {}};
  for (int64_t i = 0; i < out.ped.size(); ++i)
    if (typed[i]) out.genotyped.push_back(i);
  return out;
}

}  // namespace pmx::test
