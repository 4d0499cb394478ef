// Test cases of record_products shared by every backend's tests (test_record_products.cpp:
// reference and cpu; test_cuda_record_products.cpp: cuda): records of random animals (several per
// animal, animals without records, sorted by animal), 1 and 3 traits with random missing traits,
// per trait an intercept, one class (a level dropped) and one covariate; R⁻¹ blocks per pattern
// of observed traits, zero outside the pattern. Oracle: the same sums in long double; every entry
// of y_β and y_a must be within (records + 64)·u·Σ|terms| of it (the terms' magnitudes carried
// through the same sums), y_a exactly zero for animals without records.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "panoramix/executor_array.hpp"
#include "panoramix/ops/record_products.hpp"
#include "test_support.hpp"

namespace pmx::record_products_cases {

struct records {
  int t = 1;
  int64_t n = 0, p = 0, count = 0;
  std::vector<int64_t> animal, slot_start;
  std::vector<int32_t> block, column;
  std::vector<double> rinv, value;
  record_design_view view() const {
    record_design_view v;
    v.records = count, v.t = t, v.fixed = p, v.animals = n;
    v.animal = animal.data(), v.block = block.data(), v.rinv = rinv.data();
    v.blocks = static_cast<int64_t>(rinv.size()) / (t * t);
    v.slot_start = slot_start.data(), v.column = column.data(), v.value = value.data();
    return v;
  }
};

inline records random_records(int64_t count, int64_t n, int t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  records r;
  r.t = t, r.n = n, r.count = count;
  const int levels = 7;
  // Columns of trait k: intercept, levels 1..6 of the class (level 0 the reference), covariate.
  const int64_t per_trait = 1 + (levels - 1) + 1;
  r.p = t * per_trait;
  for (int64_t i = 0; i < count; ++i) r.animal.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
  std::sort(r.animal.begin(), r.animal.end());
  // One R⁻¹ block per pattern (index = pattern − 1), zero outside it.
  const int patterns = (1 << t) - 1;
  for (int pat = 1; pat <= patterns; ++pat)
    for (int a = 0; a < t; ++a)
      for (int b = 0; b < t; ++b) r.rinv.push_back((pat >> a & 1) && (pat >> b & 1) ? (a == b ? 2.0 : 0.0) + 0.3 * u(rng) : 0.0);
  r.slot_start.push_back(0);
  for (int64_t i = 0; i < count; ++i) {
    const int pat = 1 + static_cast<int>(rng() % static_cast<uint64_t>(patterns));
    r.block.push_back(pat - 1);
    const int level = static_cast<int>(rng() % levels);
    const double covariate = 10 * u(rng);
    for (int k = 0; k < t; ++k) {
      if (pat >> k & 1) {
        r.column.push_back(static_cast<int32_t>(k * per_trait)), r.value.push_back(1.0);
        if (level > 0) r.column.push_back(static_cast<int32_t>(k * per_trait + level)), r.value.push_back(1.0);
        r.column.push_back(static_cast<int32_t>(k * per_trait + levels)), r.value.push_back(covariate);
      }
      r.slot_start.push_back(static_cast<int64_t>(r.column.size()));
    }
  }
  return r;
}

/// The products in long double, with the magnitudes of their terms carried through the same sums.
inline void exact_products(const records& r, const std::vector<double>& beta, const std::vector<double>& a,
                           std::vector<long double>& yb, std::vector<long double>& ya, std::vector<long double>& mb,
                           std::vector<long double>& ma) {
  const int t = r.t;
  yb.assign(r.p, 0), mb.assign(r.p, 0), ya.assign(r.n * t, 0), ma.assign(r.n * t, 0);
  for (int64_t i = 0; i < r.count; ++i) {
    const int64_t an = r.animal[i];
    std::vector<long double> e(t), me(t), q(t, 0), mq(t, 0);
    for (int k = 0; k < t; ++k) {
      e[k] = a[an * t + k], me[k] = std::fabs(a[an * t + k]);
      for (int64_t j = r.slot_start[i * t + k]; j < r.slot_start[i * t + k + 1]; ++j) {
        const long double term = static_cast<long double>(r.value[j]) * beta[r.column[j]];
        e[k] += term, me[k] += std::fabs(term);
      }
    }
    const double* R = r.rinv.data() + int64_t{r.block[i]} * t * t;
    for (int k = 0; k < t; ++k)
      for (int l = 0; l < t; ++l) q[k] += R[k * t + l] * e[l], mq[k] += std::fabs(R[k * t + l]) * me[l];
    for (int k = 0; k < t; ++k) {
      ya[an * t + k] += q[k], ma[an * t + k] += mq[k];
      for (int64_t j = r.slot_start[i * t + k]; j < r.slot_start[i * t + k + 1]; ++j)
        yb[r.column[j]] += r.value[j] * q[k], mb[r.column[j]] += std::fabs(r.value[j]) * mq[k];
    }
  }
}

/// Runs the product on `exec` (vectors in its memory) and checks it; returns y_β then y_a.
inline std::vector<double> check_case(const executor& exec, const records& r, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> beta(r.p), a(r.n * r.t);
  for (auto& v : beta) v = u(rng);
  for (auto& v : a) v = u(rng);
  const record_operand op(exec, r.view());
  executor_array<double> db(exec, beta.size()), da(exec, a.size()), yb(exec, beta.size()), ya(exec, a.size());
  db.copy_from_host(beta.data(), 0, beta.size());
  da.copy_from_host(a.data(), 0, a.size());
  std::vector<double> nan(std::max(beta.size(), a.size()), NAN);  // outputs start as NaN: every entry must be written
  yb.copy_from_host(nan.data(), 0, beta.size());
  ya.copy_from_host(nan.data(), 0, a.size());
  record_multiply(op, db.data(), da.data(), yb.data(), ya.data());
  std::vector<double> got_b(beta.size()), got_a(a.size());
  yb.copy_to_host(got_b.data(), 0, got_b.size());
  ya.copy_to_host(got_a.data(), 0, got_a.size());
  std::vector<long double> eb, ea, mb, ma;
  exact_products(r, beta, a, eb, ea, mb, ma);
  const double c = static_cast<double>(r.count + 64) * 0x1p-53;
  const std::string what = std::to_string(r.count) + " records, t = " + std::to_string(r.t) + " on " + backend_name(exec.kind());
  for (int64_t j = 0; j < r.p; ++j)
    EXPECT_LE(std::fabs(got_b[j] - static_cast<double>(eb[j])), c * static_cast<double>(mb[j])) << what << ", y_beta " << j;
  std::vector<char> has(r.n, 0);
  for (int64_t an : r.animal) has[an] = 1;
  for (int64_t i = 0; i < r.n * r.t; ++i) {
    if (!has[i / r.t]) {
      EXPECT_EQ(got_a[i], 0.0) << what << ", y_a of an animal without records";
      continue;
    }
    EXPECT_LE(std::fabs(got_a[i] - static_cast<double>(ea[i])), c * static_cast<double>(ma[i])) << what << ", y_a " << i;
  }
  got_b.insert(got_b.end(), got_a.begin(), got_a.end());
  return got_b;
}

inline void every_case(const executor& exec) {
  for (int t : {1, 3})
    for (auto [count, n] : {std::pair<int64_t, int64_t>{0, 5}, {1, 3}, {500, 900}, {70000, 20000}}) {
      const records r = random_records(count, n, t, 31 + static_cast<uint64_t>(count * t));
      const auto first = check_case(exec, r, 7);
      EXPECT_EQ(first, check_case(exec, r, 7)) << "the same bits on a second product";
    }
}

}  // namespace pmx::record_products_cases
