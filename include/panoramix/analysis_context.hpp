// What a run/analysis entry of the library (run_gblup_analysis, run_single_step_analysis) gets
// from the front end that calls it: a log for its messages, stages and progress, and, at the point
// of the run where it needs them, the executor and the genotypes. The front end makes those two
// from its own options (--device, --threads, --bfile, --keep, --extract, the chromosome set); the
// analysis asks for them when it gets there, so every line the front end logs while making them
// lands in the log in the order of the work.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "panoramix/executor.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

/// Lines for a run's log and named stages whose wall time the log records; progress of long work.
class analysis_log : public progress_sink {
 public:
  /// A line for the log.
  virtual void message(const std::string& line) = 0;
  /// Starts / ends a named stage (a stage that throws is never ended).
  virtual void begin(const std::string& stage) = 0;
  virtual void end() = 0;
  /// A part of the current stage, timed by the library.
  virtual void substage(const std::string& name, double seconds) = 0;
};

/// An analysis_log that forwards to any object with the same member functions (a front end's own
/// log: the command line's run_log, say).
template <class Log>
class forwarding_analysis_log final : public analysis_log {
 public:
  explicit forwarding_analysis_log(Log& log) : log_(log) {}
  void message(const std::string& line) override { log_.message(line); }
  void begin(const std::string& stage) override { log_.begin(stage); }
  void end() override { log_.end(); }
  void substage(const std::string& name, double seconds) override { log_.substage(name, seconds); }
  void update(std::string_view stage, double fraction) override { log_.update(stage, fraction); }

 private:
  Log& log_;
};

/// A log that drops everything (for callers that pass none).
class null_analysis_log final : public analysis_log {
 public:
  void message(const std::string&) override {}
  void begin(const std::string&) override {}
  void end() override {}
  void substage(const std::string&, double) override {}
  void update(std::string_view, double) override {}
};

struct analysis_context {
  analysis_log* log = nullptr;  ///< null: no log
  /// The executor the analysis runs its ops on (asked for once, when the analysis needs it).
  std::function<executor()> make_executor;
  /// The genotypes, with the front end's sample and variant selections applied and the variants
  /// the analysis must not use (X/Y/MT for the genomic relationship models) dropped. Asked for
  /// only when the analysis reads genotypes.
  std::function<std::unique_ptr<genotype_source>()> open_genotypes;
};

}  // namespace pmx
