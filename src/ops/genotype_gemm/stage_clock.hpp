// Stage clocks of the cpu genotype products (for bench_gemm's time per stage; off by default).
// Included before the instruction-set pragmas of cpu_<isa>.cpp (through cpu_isa.hpp), like the
// standard headers, so that it is built for the baseline ISA only.
#pragma once
#include <chrono>

namespace pmx::kernels::cpu {

/// Adds the time since the previous lap to one field of a times struct (nothing when it is null).
template <class Times>
class stage_clock {
 public:
  explicit stage_clock(Times* t) : t_(t) {
    if (t_) last_ = std::chrono::steady_clock::now();
  }
  void lap(double Times::*field) {
    if (!t_) return;
    const auto now = std::chrono::steady_clock::now();
    t_->*field += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  Times* t_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace pmx::kernels::cpu
