// Progress reporting sink for long work. The library reports; front ends decide how to show it.
#pragma once
#include <string_view>

namespace pmx {

class progress_sink {
 public:
  virtual ~progress_sink() = default;
  /// `fraction` in [0, 1] of the named stage.
  virtual void update(std::string_view stage, double fraction) = 0;
};

/// Reports to `sink` when it is not null.
inline void report(progress_sink* sink, std::string_view stage, double fraction) {
  if (sink) sink->update(stage, fraction);
}

}  // namespace pmx
