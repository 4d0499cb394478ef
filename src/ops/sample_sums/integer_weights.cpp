// The int8 digits of a chunk's weights (integer_weights.hpp).
#include "ops/sample_sums/integer_weights.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ops/table_products/affine_table.hpp"

namespace pmx::kernels {
namespace {

// floor(a / b) for b > 0.
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

struct weighted_variant {
  int32_t variant;
  int bottom, top;
  int8_t digit[9];
  bool counts_a2;
  double row_weight;
};

}  // namespace

bool make_integer_weight_plan(std::span<const code_table> tables, integer_weight_plan& plan) {
  using P = integer_weight_plan;
  plan = P{};
  std::vector<weighted_variant> cols;
  cols.reserve(tables.size());
  for (size_t l = 0; l < tables.size(); ++l) {
    affine_form f;
    if (!affine_form_of(tables[l], f)) return false;
    plan.row_constant += f.alpha * f.alpha / 2;
    const double w = f.beta * f.beta;
    if (w == 0) continue;
    weighted_variant v{static_cast<int32_t>(l), 0, 0, {}, f.counts_a2, f.alpha * f.beta};
    // 2^(7b) <= 2^(1 - weight_bits) w holds for w >= 2^e when 7b <= e + 1 - weight_bits.
    v.bottom = floor_div(std::ilogb(w) + 1 - P::weight_bits, 7);
    auto M = static_cast<int64_t>(std::nearbyint(std::ldexp(w, -7 * v.bottom)));  // < 2^(weight_bits + 7)
    int s = 0;
    for (; M != 0; ++s) {  // balanced base-128 digits: d ∈ [−64, 63], M stays >= 0
      int64_t d = M & 127;
      if (d >= 64) d -= 128;
      v.digit[s] = static_cast<int8_t>(d);
      M = (M - d) / 128;
    }
    v.top = v.bottom + s - 1;
    cols.push_back(v);
  }
  // Grouped by bottom position, each group by top ascending: the columns with a digit at position
  // t are then, in each group with bottom <= t, a suffix.
  std::stable_sort(cols.begin(), cols.end(), [](const weighted_variant& a, const weighted_variant& b) {
    return std::tie(a.bottom, a.top) < std::tie(b.bottom, b.top);
  });
  struct group {
    int bottom;
    int64_t begin, end;  // columns, end padded
    std::vector<int> tops;  // top of each variant's column, ascending (padding columns follow)
  };
  std::vector<group> groups;
  std::vector<const weighted_variant*> at;
  for (size_t i = 0; i < cols.size();) {
    group g{cols[i].bottom, static_cast<int64_t>(at.size()), 0, {}};
    for (; i < cols.size() && cols[i].bottom == g.bottom; ++i) at.push_back(&cols[i]), g.tops.push_back(cols[i].top);
    while (at.size() % P::column_align) at.push_back(nullptr);
    g.end = static_cast<int64_t>(at.size());
    groups.push_back(std::move(g));
  }
  if (cols.empty()) return true;
  plan.columns = static_cast<int64_t>(at.size());
  plan.bottom = groups.front().bottom;
  plan.top = plan.bottom;
  for (const auto& c : cols) plan.top = std::max(plan.top, c.top);
  plan.variant_at.assign(static_cast<size_t>(plan.columns), -1);
  plan.counts_a2.assign(static_cast<size_t>(plan.columns), 0);
  plan.row_weight.assign(static_cast<size_t>(plan.columns), 0.0);
  plan.digits.assign(static_cast<size_t>(plan.positions() * plan.columns), 0);
  for (int64_t c = 0; c < plan.columns; ++c) {
    const weighted_variant* v = at[static_cast<size_t>(c)];
    if (!v) continue;
    plan.variant_at[c] = v->variant;
    plan.counts_a2[c] = v->counts_a2;
    plan.row_weight[c] = v->row_weight;
    for (int t = v->bottom; t <= v->top; ++t) plan.digits[(t - plan.bottom) * plan.columns + c] = v->digit[t - v->bottom];
  }
  // Per position, each group's suffix of columns reaching t; neighbouring ranges are merged.
  for (int t = plan.bottom; t <= plan.top; ++t)
    for (const group& g : groups) {
      if (g.bottom > t) continue;
      const auto first = std::lower_bound(g.tops.begin(), g.tops.end(), t) - g.tops.begin();
      if (first == static_cast<int64_t>(g.tops.size())) continue;  // no column of the group reaches t
      const int64_t begin = g.begin + first / P::column_align * P::column_align;
      if (!plan.products.empty() && plan.products.back().position == t && plan.products.back().end == begin)
        plan.products.back().end = g.end;
      else
        plan.products.push_back({t, begin, g.end});
    }
  return true;
}

}  // namespace pmx::kernels
