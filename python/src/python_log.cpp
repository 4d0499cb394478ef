// Progress and log lines of a Python call (python_log.hpp).
#include "python_log.hpp"

#include <cmath>

namespace pmx::python {

void python_log::update(std::string_view stage, double fraction) {
  std::lock_guard lock(mutex_);
  if (callback_.is_none() || error_) return;
  // A callback per percent (and each new stage, and the end) is plenty for a progress bar.
  const bool new_stage = stage != last_stage_;
  if (!new_stage && fraction < 1 && std::abs(fraction - last_fraction_) < 0.01) return;
  last_stage_ = stage, last_fraction_ = fraction;
  py::gil_scoped_acquire gil;
  try {
    callback_(std::string(stage), fraction);
  } catch (py::error_already_set& e) {
    error_.emplace(std::move(e));
  }
}

void python_log::message(const std::string& line) {
  std::lock_guard lock(mutex_);
  lines_.push_back(line);
}

void python_log::begin(const std::string& stage) { update(stage, 0.0); }

void python_log::substage(const std::string& name, double seconds) {
  message("  " + name + ": " + std::to_string(seconds) + " s");
}

std::vector<std::string> python_log::lines() const {
  std::lock_guard lock(mutex_);
  return lines_;
}

void python_log::rethrow() {
  if (!error_) return;
  py::error_already_set e = std::move(*error_);
  error_.reset();
  throw e;
}

}  // namespace pmx::python
