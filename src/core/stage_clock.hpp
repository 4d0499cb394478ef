// Wall time per named stage of a statistic (the `stage_seconds` of its result, which the logs
// print): a stage timed again (one per block, say) adds to its first entry.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace pmx::detail {

class stage_clock {
 public:
  explicit stage_clock(std::vector<std::pair<std::string, double>>& out) : out_(out) {}
  template <class F>
  void time(const char* stage, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (auto& [name, total] : out_)
      if (name == stage) return void(total += s);
    out_.emplace_back(stage, s);
  }

 private:
  std::vector<std::pair<std::string, double>>& out_;
};

}  // namespace pmx::detail
