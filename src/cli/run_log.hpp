// PREFIX.log beside the outputs (command line, version, timings, messages), echo of messages
// on stdout, and progress on stderr for work that lasts more than a couple of seconds.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "panoramix/progress.hpp"

namespace pmx::cli {

class run_log : public progress_sink {
 public:
  /// Opens PREFIX.log (overwriting) and writes the header: version, command line, start time.
  /// `quiet`: no file and nothing on stdout (the ranks other than 0 of a run over processes).
  run_log(const std::string& prefix, int argc, char** argv, bool quiet = false);
  ~run_log() override;

  /// A line for the log and stdout.
  void message(const std::string& line);
  /// Starts/ends a named stage; end writes its wall time.
  void begin(const std::string& stage);
  void end();
  /// A line "Time   NAME: seconds" under the current stage (its parts, measured by the library).
  void substage(const std::string& name, double seconds);
  /// Progress on stderr, throttled, only once the command has run for a couple of seconds.
  void update(std::string_view stage, double fraction) override;
  /// Final lines; `ok` false writes the error.
  void finish(bool ok, const std::string& error = {});
  const std::string& path() const { return path_; }

 private:
  using clock = std::chrono::steady_clock;
  std::string path_;
  FILE* f_ = nullptr;
  clock::time_point start_, stage_start_, last_progress_;
  std::string stage_;
  bool progress_shown_ = false;
  bool quiet_ = false;
  void clear_progress();
};

}  // namespace pmx::cli
