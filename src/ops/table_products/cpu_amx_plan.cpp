// The affine decomposition of code tables and the integer weights of the AMX route (cpu_amx.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "ops/table_products/affine_table.hpp"
#include "ops/table_products/cpu_amx.hpp"
#include "core/cpu_dispatch.hpp"

namespace pmx::kernels::cpu {

namespace {

// Digits needed to keep every weight of a group spanning `span` binary exponents to 2^-47.
int slices_for_span(int span) { return (affine_plan::weight_bits + 1 + span + 6) / 7; }

// Groups of a few variants each cost a pass over the n×n output: merge levels until this many.
constexpr int64_t min_group = 1024;

}  // namespace

bool make_affine_plan(std::span<const code_table> t, affine_plan& plan) {
  const auto k = static_cast<int64_t>(t.size());
  plan = affine_plan{};
  plan.alpha.resize(static_cast<size_t>(k));
  plan.beta.resize(static_cast<size_t>(k));
  plan.flip.resize(static_cast<size_t>(k));
  std::map<int, std::vector<int64_t>, std::greater<int>> levels;  // exponent of w -> variants
  for (int64_t l = 0; l < k; ++l) {
    affine_form f;
    if (!affine_form_of(t[l], f)) return false;
    const double alpha = f.alpha, beta = f.beta, w = beta * beta;
    plan.alpha[l] = alpha;
    plan.beta[l] = beta;
    plan.flip[l] = f.counts_a2;
    plan.alpha2_sum += alpha * alpha;
    if (w > 0) levels[std::ilogb(w)].push_back(l);
  }
  // Greedy groups from the largest weights down (see cpu_amx.hpp for the bound).
  std::vector<std::pair<int, std::vector<int64_t>*>> order;
  for (auto& [e, v] : levels) order.emplace_back(e, &v);
  struct pending {
    size_t first, last;
    int slices;
  };
  std::vector<pending> spans;
  for (size_t i = 0; i < order.size();) {
    const int e_hi = order[i].first;
    int64_t count = static_cast<int64_t>(order[i].second->size());
    int slices = slices_for_span(0);
    size_t j = i + 1;
    for (; j < order.size(); ++j) {
      const int s = slices_for_span(e_hi - order[j].first);
      if (s > affine_plan::max_slices || (s != slices && count >= min_group)) break;
      slices = s;
      count += static_cast<int64_t>(order[j].second->size());
    }
    spans.push_back({i, j, slices});
    i = j;
  }
  for (const auto& sp : spans) {
    affine_plan::group gr;
    gr.begin = plan.positions();
    gr.slices = sp.slices;
    gr.scale_exp = order[sp.first].first + 1 - 7 * sp.slices;
    for (size_t i = sp.first; i < sp.last; ++i)
      for (int64_t l : *order[i].second) plan.variant_at.push_back(l);
    while (plan.positions() % 64) plan.variant_at.push_back(-1);
    gr.end = plan.positions();
    plan.groups.push_back(gr);
  }
  const int64_t np = plan.positions();
  plan.digits.assign(static_cast<size_t>(affine_plan::max_slices * np), 0);
  for (const auto& gr : plan.groups) {
    const auto top = static_cast<int64_t>(1) << (7 * gr.slices);  // M < 2^(7S) <= 2^56
    for (int64_t p = gr.begin; p < gr.end; ++p) {
      const int64_t l = plan.variant_at[p];
      if (l < 0) continue;
      const double w = plan.beta[l] * plan.beta[l];
      const int64_t M = std::min(top - 1, static_cast<int64_t>(std::nearbyint(std::ldexp(w, -gr.scale_exp))));
      for (int s = 0; s < gr.slices; ++s) plan.digits[s * np + p] = static_cast<uint8_t>((M >> (7 * s)) & 127);
    }
  }
  return true;
}

}  // namespace pmx::kernels::cpu
