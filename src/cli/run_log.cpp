#include "cli/run_log.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "panoramix/error.hpp"

namespace pmx::cli {
namespace {
std::string now_string() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
  return buf;
}
}  // namespace

run_log::run_log(const std::string& prefix, int argc, char** argv, bool quiet)
    : path_(quiet ? "/dev/null" : prefix + ".log"), start_(clock::now()), stage_start_(start_),
      last_progress_(start_), quiet_(quiet) {
  f_ = std::fopen(path_.c_str(), "w");
  if (!f_) throw io_error("cannot write log file '" + path_ + "': " + std::strerror(errno));
  std::fprintf(f_, "panoramix %s\n", PMX_VERSION);
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  std::fprintf(f_, "Command: %s\nStart: %s\n", cmd.c_str(), now_string().c_str());
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  std::fprintf(f_, "Host: %s, %ld logical CPUs\n", host, ::sysconf(_SC_NPROCESSORS_ONLN));
  std::fflush(f_);
}

run_log::~run_log() {
  if (f_) std::fclose(f_);
}

void run_log::message(const std::string& line) {
  clear_progress();
  if (!quiet_) std::printf("%s\n", line.c_str()), std::fflush(stdout);
  std::fprintf(f_, "%s\n", line.c_str());
  std::fflush(f_);
}

void run_log::begin(const std::string& stage) {
  stage_ = stage;
  stage_start_ = clock::now();
}

void run_log::end() {
  const double s = std::chrono::duration<double>(clock::now() - stage_start_).count();
  clear_progress();
  std::fprintf(f_, "Time %-28s %10.3f s\n", (stage_ + ":").c_str(), s);
  std::fflush(f_);
}

void run_log::substage(const std::string& name, double seconds) {
  std::fprintf(f_, "Time   %-26s %10.3f s\n", (name + ":").c_str(), seconds);
  std::fflush(f_);
}

void run_log::update(std::string_view stage, double fraction) {
  if (quiet_) return;
  const auto now = clock::now();
  if (now - start_ < std::chrono::seconds(2)) return;
  // A terminal gets a line rewritten in place; a file or pipe one line every 10 seconds.
  const bool tty = ::isatty(2);
  if (now - last_progress_ < (tty ? std::chrono::milliseconds(500) : std::chrono::milliseconds(10000)))
    return;
  last_progress_ = now;
  std::fprintf(stderr, tty ? "\r%.*s: %3d%%" : "%.*s: %3d%%\n", static_cast<int>(stage.size()),
               stage.data(), static_cast<int>(fraction * 100));
  std::fflush(stderr);
  progress_shown_ = tty;
}

void run_log::clear_progress() {
  if (progress_shown_) {
    std::fprintf(stderr, "\r\033[K");
    progress_shown_ = false;
  }
}

void run_log::finish(bool ok, const std::string& error) {
  clear_progress();
  const double s = std::chrono::duration<double>(clock::now() - start_).count();
  if (!ok) std::fprintf(f_, "Error: %s\n", error.c_str());
  std::fprintf(f_, "End: %s (%.3f s total)%s\n", now_string().c_str(), s, ok ? "" : " FAILED");
  std::fflush(f_);
}

}  // namespace pmx::cli
