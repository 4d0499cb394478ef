// How many parts the reduction of a CUDA genotype product is split into (host side, shared by the
// FP64 and the INT8 routes).
#pragma once
#include <algorithm>
#include <cstdint>

namespace pmx::kernels::cuda_detail {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The kernels run one or two 256-thread blocks per SM (register bound), so the grid is sized in
// whole waves: among the split counts that keep a split's work reasonable (>= `min_len`
// reduction items) and within `max_splits`, the one whose last wave is fullest (ties to fewer
// splits). E.g. Zᵀ·Λ̃ (m8) with 50,241 variants: 99 blocks x 4 splits = 3 waves of 132 instead
// of 4.5. `slots`: blocks that run at once (SMs x blocks per SM).
inline int64_t choose_splits(int64_t bx, int64_t slots, int64_t len, int64_t min_len, int64_t max_splits) {
  int64_t best = 1;
  double best_score = -1;
  const int64_t most =
      std::max<int64_t>(1, std::min<int64_t>({max_splits, int64_t{64}, len / std::max<int64_t>(1, min_len)}));
  for (int64_t s = 1; s <= most; ++s) {
    const int64_t blocks = bx * s, waves = ceil_div(blocks, slots);
    const double fill = double(blocks) / double(waves * slots);
    const double score = fill - 0.004 * double(s) - (waves < 2 && s < most ? 0.5 : 0.0) * (1.0 - fill);
    if (score > best_score + 1e-9) best_score = score, best = s;
  }
  return best;
}

}  // namespace pmx::kernels::cuda_detail
