// The library's log and progress for a Python call: progress goes to an optional Python callable
// callback(stage: str, fraction: float), the log's lines are kept for the result. The library
// reports from its own threads while the GIL is released; each report takes the GIL. An exception
// raised by the callback stops further reports and is raised again when the call returns (the
// library's work cannot be abandoned half way safely).
#pragma once
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "module.hpp"
#include "panoramix/analysis_context.hpp"

namespace pmx::python {

class python_log final : public analysis_log {
 public:
  /// `callback`: None or a callable(stage, fraction). Construct and destroy with the GIL held.
  explicit python_log(py::object callback) : callback_(std::move(callback)) {}

  void update(std::string_view stage, double fraction) override;
  void message(const std::string& line) override;
  void begin(const std::string& stage) override;
  void end() override {}
  void substage(const std::string& name, double seconds) override;

  /// The log's lines so far.
  std::vector<std::string> lines() const;
  /// Raises the callback's exception, if it raised one (call with the GIL held).
  void rethrow();

 private:
  py::object callback_;
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
  std::string last_stage_;
  double last_fraction_ = -1;
  std::optional<py::error_already_set> error_;
};

/// Runs f(log) with the GIL released, then raises the callback's exception if there was one.
template <class F>
auto with_progress(python_log& log, F&& f) {
  auto result = without_gil([&] { return f(log); });
  log.rethrow();
  return result;
}

}  // namespace pmx::python
